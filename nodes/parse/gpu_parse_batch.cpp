#include "nodes/parse/gpu_parse_batch.hpp"

#include <string>

#include "invidx/error.hpp"

namespace invidx {

GpuAnalysisInput gpu_analysis_input(const DocBatch& batch, const AnalysisSettings& settings, std::string& gathered) {
    GpuAnalysisInput input;
    const size_t documents = batch.docs.size();
    input.offsets.reserve(documents);
    input.lengths.reserve(documents);
    input.html.reserve(documents);
    // The device takes one buffer of documents in increasing, disjoint
    // ranges. A batch whose documents point into the decompressed blocks
    // they came from, or lie out of order in its text, is gathered first
    // (one host copy; gathering straight into the pinned staging buffer
    // would save it). An empty document may sit anywhere: it is given the
    // end of the one before.
    bool in_order = batch.sources.empty();
    uint64_t end = 0;
    for (const DocRecord& doc : batch.docs) {
        if (!in_order) break;
        if (doc.text_length == 0) continue;
        in_order = doc.source == kOwnText && doc.text_offset >= end;
        end = uint64_t{doc.text_offset} + doc.text_length;
    }
    if (in_order) {
        input.text = batch.text;
    } else {
        gathered.clear();
        gathered.reserve(batch.text_bytes);
        for (const DocRecord& doc : batch.docs) gathered.append(batch.text_of(doc));
        input.text = gathered;
    }
    end = 0;
    for (const DocRecord& doc : batch.docs) {
        const uint64_t offset = !in_order || doc.text_length == 0 ? end : doc.text_offset;
        input.offsets.push_back(offset);
        input.lengths.push_back(doc.text_length);
        input.html.push_back(doc.html ? 1 : 0);
        end = offset + doc.text_length;
    }
    input.stopwords = settings.stopwords;
    input.stemmer = gpu_stemmer_named(settings.stemmer);
    input.positional = settings.positions;
    return input;
}

ParsedBatch parsed_batch_from(const DocBatch& batch, GpuAnalysisResult&& result, bool positional) {
    const size_t documents = batch.docs.size();
    ensure(result.documents() == documents && result.term_begin.size() == documents + 1,
           "a GPU parser returned " + std::to_string(result.documents()) + " documents for a batch of " +
               std::to_string(documents));
    ensure(result.bytes.size() <= UINT32_MAX && result.positions.size() <= UINT32_MAX,
           "a parsed batch's terms or positions exceed 2^32 - 1 entries");
    ParsedBatch out;
    out.sequence = batch.sequence;
    out.first_docid = batch.first_docid;
    out.end_of_input = batch.end_of_input;
    out.lease = batch.lease;
    out.docs.reserve(documents);
    out.occurrences.reserve(result.terms.size());
    for (size_t local = 0; local < documents; ++local) {
        const DocRecord& doc = batch.docs[local];
        out.docs.push_back(ParsedDoc{doc.name, result.lengths[local], doc.file_ordinal, doc.source_offset});
        // The result lays the documents' term bytes and positions back to
        // back, as parse_batch appends them to its arena: only the bases move.
        const auto arena_base = static_cast<uint32_t>(result.byte_begin[local]);
        const auto positions_base = static_cast<uint32_t>(result.position_begin[local]);
        for (uint64_t t = result.term_begin[local]; t < result.term_begin[local + 1]; ++t) {
            const GpuAnalysisResult::Term& term = result.terms[t];
            out.occurrences.push_back(TermOccurrence{static_cast<uint32_t>(local), term.collection,
                                                     arena_base + term.term_offset, term.term_length, term.tf,
                                                     positional ? positions_base + term.first_position_index : 0});
        }
        out.text_bytes += doc.text_length;
        out.tokens += result.tokens[local];
    }
    out.terms = std::move(result.bytes);
    if (positional) out.positions = std::move(result.positions);
    return out;
}

ParsedBatch parse_batch_with(GpuBatchAnalyzer& analyzer, const DocBatch& batch, const AnalysisSettings& settings) {
    std::string gathered;
    return parsed_batch_from(batch, analyzer.analyze(gpu_analysis_input(batch, settings, gathered)), settings.positions);
}

}  // namespace invidx
