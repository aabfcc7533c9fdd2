#include "devices/analysis_batch.hpp"

#include <string>

#include "analysis/stopwords.hpp"
#include "invidx/error.hpp"

namespace invidx {

GpuStemmer gpu_stemmer_named(const std::string& name) {
    if (name == "porter") return GpuStemmer::porter;
    if (name == "none") return GpuStemmer::none;
    throw Error("stemmer '" + name + "' has no GPU implementation (porter or none)");
}

namespace analysis_batch {

void check_input(const GpuAnalysisInput& input) {
    const size_t documents = input.documents();
    ensure(input.lengths.size() == documents && input.html.size() == documents,
           "gpu_analyze_batch: offsets, lengths and html flags differ in number (" + std::to_string(documents) +
               ", " + std::to_string(input.lengths.size()) + ", " + std::to_string(input.html.size()) + ")");
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

GpuAnalysisResult pack_result(const GpuAnalysisInput& input, const TermRegions& regions, const PassOutput& output) {
    const size_t documents = input.documents();
    GpuAnalysisResult result;
    result.term_begin.reserve(documents + 1);
    result.byte_begin.reserve(documents + 1);
    result.position_begin.reserve(documents + 1);
    result.term_begin.push_back(0);
    result.byte_begin.push_back(0);
    result.position_begin.push_back(0);
    result.lengths.reserve(documents);
    result.tokens.reserve(documents);
    for (size_t d = 0; d < documents; ++d) {
        const unsigned char* const term_bytes = output.term_bytes + input.offsets[d];
        const document_passes::GroupedTerm* const terms = output.terms + regions.begin[d];
        // A document's unique term bytes are at most its own bytes: they fit 32 bits.
        uint32_t document_bytes = 0;
        for (uint32_t k = 0; k < output.unique[d]; ++k) {
            const document_passes::GroupedTerm& term = terms[k];
            result.terms.push_back(GpuAnalysisResult::Term{document_bytes, term.length, term.tf, term.collection,
                                                           term.first_position_index});
            result.bytes.append(reinterpret_cast<const char*>(term_bytes + term.start), term.length);
            document_bytes += term.length;
        }
        if (input.positional) {
            const uint32_t* positions = output.positions + regions.begin[d];
            result.positions.insert(result.positions.end(), positions, positions + output.indexed[d]);
        }
        result.term_begin.push_back(result.terms.size());
        result.byte_begin.push_back(result.bytes.size());
        result.position_begin.push_back(result.positions.size());
        result.lengths.push_back(output.indexed[d]);  // sum of tf: every indexed token is one
        result.tokens.push_back(output.tokens[d]);
    }
    return result;
}

}  // namespace analysis_batch

bool same_analysis_result(const GpuAnalysisResult& a, const GpuAnalysisResult& b) {
    if (a.terms.size() != b.terms.size()) return false;
    for (size_t t = 0; t < a.terms.size(); ++t) {
        const auto& x = a.terms[t];
        const auto& y = b.terms[t];
        if (x.term_offset != y.term_offset || x.term_length != y.term_length || x.tf != y.tf ||
            x.collection != y.collection || x.first_position_index != y.first_position_index) {
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
