#include "nodes/parse/gpu_parse_batch.hpp"

#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "invidx/error.hpp"

namespace invidx {

// The GPU analysis result's terms are copied as TermOccurrences.
using BatchTerm = GpuAnalysisResult::Term;
static_assert(sizeof(BatchTerm) == sizeof(TermOccurrence) && std::is_trivially_copyable_v<BatchTerm> &&
              std::is_trivially_copyable_v<TermOccurrence>);
static_assert(offsetof(BatchTerm, local_docid) == offsetof(TermOccurrence, local_docid) &&
              offsetof(BatchTerm, collection) == offsetof(TermOccurrence, collection) &&
              offsetof(BatchTerm, term_offset) == offsetof(TermOccurrence, term_offset) &&
              offsetof(BatchTerm, term_length) == offsetof(TermOccurrence, term_length) &&
              offsetof(BatchTerm, tf) == offsetof(TermOccurrence, tf) &&
              offsetof(BatchTerm, positions_offset) == offsetof(TermOccurrence, positions_offset));

namespace {

// The device addresses of the documents that lie in blocks whose text is
// also in GPU `device`'s memory; none where no document does.
void add_device_pieces(const DocBatch& batch, int device, GpuAnalysisInput& input) {
    std::vector<const char*> addresses(batch.docs.size(), nullptr);
    bool any = false;
    for (size_t d = 0; d < batch.docs.size(); ++d) {
        const DocRecord& doc = batch.docs[d];
        if (doc.source == kOwnText || doc.text_length == 0) continue;
        const TextBlock& block = *batch.sources[doc.source];
        if (!block.device_text || block.device_text->device != device) continue;
        addresses[d] = block.device_text->address_of(doc.text_offset, doc.text_length);
        any = any || addresses[d] != nullptr;
    }
    if (!any) return;
    input.device_pieces = std::move(addresses);
    input.pieces_device = device;
}

}  // namespace

GpuAnalysisInput gpu_analysis_input(const DocBatch& batch, const AnalysisSettings& settings, int device) {
    GpuAnalysisInput input;
    const size_t documents = batch.docs.size();
    input.offsets.reserve(documents);
    input.lengths.reserve(documents);
    input.html.reserve(documents);
    // The device takes one buffer of documents in increasing, disjoint
    // ranges. A batch whose documents point into the decompressed blocks
    // they came from, or lie out of order in its text, goes as one piece
    // per document, which the analyzer gathers into its pinned staging
    // buffer. An empty document may sit anywhere: it is given the end of
    // the one before.
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
        input.pieces.reserve(documents);
        for (const DocRecord& doc : batch.docs) input.pieces.push_back(batch.text_of(doc));
        if (device >= 0) add_device_pieces(batch, device, input);
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
    // The result is in the batch's own layout, its terms TermOccurrences
    // field for field: one bulk copy, no work per term.
    out.occurrences.resize(result.terms.size());
    if (!result.terms.empty())
        std::memcpy(out.occurrences.data(), result.terms.data(), result.terms.size() * sizeof(TermOccurrence));
    for (size_t local = 0; local < documents; ++local) {
        const DocRecord& doc = batch.docs[local];
        out.docs.push_back(ParsedDoc{doc.name, result.lengths[local], doc.file_ordinal, doc.source_offset});
        out.text_bytes += doc.text_length;
        out.tokens += result.tokens[local];
    }
    out.terms = std::move(result.bytes);
    if (positional) out.positions = std::move(result.positions);
    out.resident = std::move(result.resident);
    return out;
}

ParsedBatch parse_batch_with(GpuBatchAnalyzer& analyzer, const DocBatch& batch, const AnalysisSettings& settings,
                             const uint8_t* keep_on_device) {
    GpuAnalysisInput input = gpu_analysis_input(batch, settings, analyzer.device_ordinal());
    input.keep_on_device = keep_on_device;
    return parsed_batch_from(batch, analyzer.analyze(input), settings.positions);
}

}  // namespace invidx
