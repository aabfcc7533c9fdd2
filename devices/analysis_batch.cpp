#include "devices/analysis_batch.hpp"

#include <cstdint>
#include <cstring>
#include <string>

#include "analysis/stopwords.hpp"
#include "invidx/error.hpp"

namespace invidx {

GpuStemmer gpu_stemmer_named(const std::string& name) {
    if (name == "porter") return GpuStemmer::porter;
    if (name == "none") return GpuStemmer::none;
    throw Error("stemmer '" + name + "' has no GPU implementation (porter or none)");
}

void GpuAnalysisInput::copy_text_to(char* out) const {
    if (pieces.empty()) {
        if (!text.empty()) std::memcpy(out, text.data(), text.size());
        return;
    }
    for (size_t d = 0; d < pieces.size(); ++d) {
        if (!pieces[d].empty()) std::memcpy(out + offsets[d], pieces[d].data(), pieces[d].size());
    }
}

namespace analysis_batch {

void check_input(const GpuAnalysisInput& input) {
    const size_t documents = input.documents();
    ensure(input.lengths.size() == documents && input.html.size() == documents,
           "gpu_analyze_batch: offsets, lengths and html flags differ in number (" + std::to_string(documents) +
               ", " + std::to_string(input.lengths.size()) + ", " + std::to_string(input.html.size()) + ")");
    if (!input.pieces.empty()) {
        ensure(input.text.empty() && input.pieces.size() == documents,
               "gpu_analyze_batch: " + std::to_string(input.pieces.size()) + " pieces for " +
                   std::to_string(documents) + " documents, or pieces and a text both");
        ensure(input.device_pieces.empty() || input.device_pieces.size() == documents,
               "gpu_analyze_batch: " + std::to_string(input.device_pieces.size()) + " device pieces for " +
                   std::to_string(documents) + " documents");
        uint64_t end = 0;
        for (size_t d = 0; d < documents; ++d) {
            ensure(input.offsets[d] == end && input.lengths[d] == input.pieces[d].size(),
                   "gpu_analyze_batch: piece " + std::to_string(d) + " is not laid out back to back (offset " +
                       std::to_string(input.offsets[d]) + ", length " + std::to_string(input.lengths[d]) + ", " +
                       std::to_string(input.pieces[d].size()) + " bytes)");
            end += input.lengths[d];
        }
        return;
    }
    ensure(input.device_pieces.empty(), "gpu_analyze_batch: device pieces without pieces");
    uint64_t previous_end = 0;
    for (size_t d = 0; d < documents; ++d) {
        const uint64_t offset = input.offsets[d];
        ensure(offset >= previous_end && offset <= input.text.size() && input.lengths[d] <= input.text.size() - offset,
               "gpu_analyze_batch: document " + std::to_string(d) + " (bytes " + std::to_string(offset) + " + " +
                   std::to_string(input.lengths[d]) + ") overlaps the one before it or runs past the text (" +
                   std::to_string(input.text.size()) + " bytes)");
        previous_end = offset + input.lengths[d];
    }
}

std::vector<uint64_t> occurrence_regions(const GpuAnalysisInput& input) {
    std::vector<uint64_t> begin(input.documents() + 1, 0);
    for (size_t d = 0; d < input.documents(); ++d) {
        begin[d + 1] = begin[d] + document_passes::token_bound(input.lengths[d]);
    }
    return begin;
}

TermRegions term_regions(const std::vector<uint32_t>& indexed) {
    TermRegions regions;
    regions.begin.assign(indexed.size() + 1, 0);
    regions.table_begin.assign(indexed.size() + 1, 0);
    for (size_t d = 0; d < indexed.size(); ++d) {
        regions.begin[d + 1] = regions.begin[d] + indexed[d];
        regions.table_begin[d + 1] = regions.table_begin[d] + document_passes::table_slots(indexed[d]);
    }
    return regions;
}

namespace {

// The per-document boundaries and counts of a result whose terms are laid
// out: term_begin from the unique counts, byte_begin from each document's
// first term (or the end of the one before), position_begin from the
// lengths (every indexed token is one position).
void lay_out_documents(const GpuAnalysisInput& input, const uint32_t* indexed, const uint32_t* tokens,
                       const uint32_t* unique, GpuAnalysisResult& result, bool all_terms = true) {
    const size_t documents = input.documents();
    result.term_begin.resize(documents + 1);
    result.byte_begin.resize(documents + 1);
    result.position_begin.resize(documents + 1);
    result.lengths.assign(indexed, indexed + documents);  // sum of tf: every indexed token is one
    result.tokens.assign(tokens, tokens + documents);
    uint64_t term = 0, bytes = 0, positions = 0;
    for (size_t d = 0; d < documents; ++d) {
        result.term_begin[d] = term;
        result.byte_begin[d] = bytes;
        result.position_begin[d] = positions;
        term += unique[d];
        if (unique[d] != 0 && all_terms)
            bytes = uint64_t{result.terms[term - 1].term_offset} + result.terms[term - 1].term_length;
        if (input.positional) positions += indexed[d];
    }
    result.term_begin[documents] = term;
    result.byte_begin[documents] = bytes;
    result.position_begin[documents] = positions;
    if (!all_terms) result.byte_begin.clear();
}

}  // namespace

GpuAnalysisResult pack_result(const GpuAnalysisInput& input, const TermRegions& regions, const PassOutput& output) {
    const size_t documents = input.documents();
    GpuAnalysisResult result;
    uint64_t term_count = 0, byte_count = 0, position_count = 0;
    for (size_t d = 0; d < documents; ++d) {
        term_count += output.unique[d];
        for (uint32_t k = 0; k < output.unique[d]; ++k) byte_count += output.terms[regions.begin[d] + k].length;
        position_count += output.indexed[d];
    }
    ensure(byte_count <= UINT32_MAX && position_count <= UINT32_MAX,
           "gpu_analyze_batch: a batch's term bytes or positions exceed 2^32 - 1");
    result.terms.reserve(term_count);
    result.bytes.reserve(byte_count);
    if (input.positional) result.positions.reserve(position_count);
    for (size_t d = 0; d < documents; ++d) {
        const unsigned char* const term_bytes = output.term_bytes + input.offsets[d];
        const document_passes::GroupedTerm* const terms = output.terms + regions.begin[d];
        const auto positions_base = static_cast<uint32_t>(result.positions.size());
        for (uint32_t k = 0; k < output.unique[d]; ++k) {
            const document_passes::GroupedTerm& term = terms[k];
            result.terms.push_back(GpuAnalysisResult::Term{
                static_cast<uint32_t>(d), term.collection, static_cast<uint32_t>(result.bytes.size()), term.length,
                term.tf, input.positional ? positions_base + term.first_position_index : 0});
            result.bytes.append(reinterpret_cast<const char*>(term_bytes + term.start), term.length);
        }
        if (input.positional) {
            const uint32_t* positions = output.positions + regions.begin[d];
            result.positions.insert(result.positions.end(), positions, positions + output.indexed[d]);
        }
    }
    lay_out_documents(input, output.indexed, output.tokens, output.unique, result);
    return result;
}

GpuAnalysisResult pack_batch_result(const GpuAnalysisInput& input, const BatchOutput& output) {
    GpuAnalysisResult result;
    result.terms.assign(output.terms, output.terms + output.term_count);
    result.bytes.assign(reinterpret_cast<const char*>(output.term_bytes), output.term_byte_count);
    if (input.positional) result.positions.assign(output.positions, output.positions + output.position_count);
    lay_out_documents(input, output.indexed, output.tokens, output.unique, result, !output.some_terms_on_device);
    return result;
}

}  // namespace analysis_batch

bool same_analysis_result(const GpuAnalysisResult& a, const GpuAnalysisResult& b) {
    if (a.terms.size() != b.terms.size()) return false;
    for (size_t t = 0; t < a.terms.size(); ++t) {
        const auto& x = a.terms[t];
        const auto& y = b.terms[t];
        if (x.local_docid != y.local_docid || x.term_offset != y.term_offset || x.term_length != y.term_length ||
            x.tf != y.tf || x.collection != y.collection || x.positions_offset != y.positions_offset) {
            return false;
        }
    }
    return a.bytes == b.bytes && a.positions == b.positions && a.term_begin == b.term_begin &&
           a.byte_begin == b.byte_begin && a.position_begin == b.position_begin && a.lengths == b.lengths &&
           a.tokens == b.tokens;
}

GpuAnalysisResult analyze_batch_on_host(const GpuAnalysisInput& input) {
    using namespace analysis_batch;
    check_input(input);
    if (!input.pieces.empty()) {  // the device gathers them; here, a copy of the input with a text
        std::string gathered(input.text_size(), '\0');
        input.copy_text_to(gathered.data());
        GpuAnalysisInput whole = input;
        whole.pieces.clear();
        whole.device_pieces.clear();
        whole.text = gathered;
        return analyze_batch_on_host(whole);
    }
    const StopwordSet stopword_set(input.stopwords);
    const StopwordTable stopwords = stopword_set.table();
    const bool stem = input.stemmer == GpuStemmer::porter;
    const size_t documents = input.documents();
    const auto* const text = reinterpret_cast<const unsigned char*>(input.text.data());

    const std::vector<uint64_t> occurrence_begin = occurrence_regions(input);
    std::vector<unsigned char> term_bytes(input.text.size());
    std::vector<document_passes::TermOccurrence> occurrences(occurrence_begin.back());
    std::vector<uint32_t> indexed(documents);
    std::vector<uint32_t> tokens(documents);
    for (size_t d = 0; d < documents; ++d) {
        const document_passes::TokenCounts counts = document_passes::collect_document_tokens(
            text + input.offsets[d], input.lengths[d], input.html[d] != 0, stopwords, stem,
            term_bytes.data() + input.offsets[d], occurrences.data() + occurrence_begin[d]);
        indexed[d] = counts.indexed;
        tokens[d] = counts.tokens;
    }

    const TermRegions regions = term_regions(indexed);
    std::vector<uint32_t> table(regions.table_begin.back(), 0);
    std::vector<uint32_t> occurrence_terms(regions.begin.back());
    std::vector<document_passes::GroupedTerm> terms(regions.begin.back());
    std::vector<uint32_t> positions(input.positional ? regions.begin.back() : 0);
    std::vector<uint32_t> unique(documents);
    for (size_t d = 0; d < documents; ++d) {
        const uint64_t at = regions.begin[d];
        unique[d] = document_passes::group_document_terms(
            term_bytes.data() + input.offsets[d], occurrences.data() + occurrence_begin[d], indexed[d],
            table.data() + regions.table_begin[d], input.positional, occurrence_terms.data() + at, terms.data() + at,
            input.positional ? positions.data() + at : nullptr);
    }

    PassOutput output;
    output.term_bytes = term_bytes.data();
    output.indexed = indexed.data();
    output.tokens = tokens.data();
    output.unique = unique.data();
    output.terms = terms.data();
    output.positions = positions.data();
    return pack_result(input, regions, output);
}

}  // namespace invidx
