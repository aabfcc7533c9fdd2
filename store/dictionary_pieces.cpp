#include "store/dictionary_pieces.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <algorithm>

#include "invidx/error.hpp"
#include "store/index_layout.hpp"
#include "store/little_endian_append.hpp"

namespace invidx {
uint64_t dictionary_record_bytes(const DictionaryTerm& term) {
    return 4 + term.term.size() + 4 + 8 + 8 + 4 + 12 * term.lists.size();
}

void append_dictionary_record(std::string& out, const DictionaryTerm& term) {
    if (term.term.size() > UINT32_MAX) [[unlikely]]
        throw Error("a term of " + std::to_string(term.term.size()) + " bytes is too long");
    put_u32(out, static_cast<uint32_t>(term.term.size()));
    out += term.term;
    put_u32(out, term.collection);
    put_u64(out, term.df);
    put_u64(out, term.cf);
    put_u32(out, static_cast<uint32_t>(term.lists.size()));
    for (const auto& ref : term.lists) {
        put_u32(out, ref.run);
        put_u32(out, ref.indexer);
        put_u32(out, ref.slot);
    }
}

std::string encode_dictionary_records(const std::vector<DictionaryTerm>& terms) {
    // Chunks of terms encoded on every core, then put together.
    constexpr size_t kChunkTerms = 8192;
    const size_t chunks = (terms.size() + kChunkTerms - 1) / kChunkTerms;
    std::vector<std::string> encoded(chunks);
    oneapi::tbb::parallel_for(size_t{0}, chunks, [&](size_t c) {
        const size_t end = std::min(terms.size(), (c + 1) * kChunkTerms);
        for (size_t t = c * kChunkTerms; t < end; ++t) append_dictionary_record(encoded[c], terms[t]);
    });
    if (chunks == 1) return std::move(encoded.front());
    uint64_t bytes = 0;
    for (const auto& chunk : encoded) bytes += chunk.size();
    std::string out;
    out.reserve(bytes);
    for (const auto& chunk : encoded) out += chunk;
    return out;
}

std::string encode_dictionary_offsets(const std::vector<DictionaryTerm>& terms, uint64_t first_record_offset) {
    std::string out;
    out.reserve(8 * terms.size());
    uint64_t offset = first_record_offset;
    for (const auto& term : terms) {
        put_u64(out, offset);
        offset += dictionary_record_bytes(term);
    }
    return out;
}

std::string encode_dictionary_header(uint64_t terms) {
    std::string out(layout::kDictionaryMagic);
    put_u32(out, layout::kFileVersion);
    put_u32(out, 0);  // reserved
    put_u64(out, terms);
    return out;
}

std::vector<std::string> choose_term_splitters(const std::vector<std::vector<std::string>>& samples,
                                               const std::vector<double>& weights, uint32_t pieces) {
    std::vector<std::pair<std::string_view, double>> all;
    double total = 0;
    for (size_t p = 0; p < samples.size(); ++p)
        for (const auto& term : samples[p]) all.emplace_back(term, weights[p]), total += weights[p];
    std::sort(all.begin(), all.end());
    std::vector<std::string> splitters;
    double before = 0;  // weight of the samples before all[i]
    size_t i = 0;
    for (uint32_t j = 1; j < pieces; ++j) {
        const double target = total * j / pieces;
        // The first sample with this much weight before it starts range j.
        while (i < all.size() && before + all[i].second <= target) before += all[i].second, ++i;
        // Samples ran out (fewer samples than pieces): past the last one.
        splitters.emplace_back(i < all.size() ? all[i].first : all.empty() ? std::string_view() : all.back().first);
    }
    return splitters;
}

uint32_t splitter_range(const std::vector<std::string>& splitters, std::string_view term) {
    return static_cast<uint32_t>(std::upper_bound(splitters.begin(), splitters.end(), term,
                                                  [](std::string_view t, const std::string& s) { return t < s; }) -
                                 splitters.begin());
}

std::vector<std::string> sample_sorted_terms(const std::vector<DictionaryTerm>& terms, uint32_t count, double& weight) {
    std::vector<std::string> sample;
    weight = 0;
    if (terms.empty() || count == 0) return sample;
    const uint64_t taken = std::min<uint64_t>(count, terms.size());
    for (uint64_t i = 0; i < taken; ++i) sample.push_back(terms[i * terms.size() / taken].term);
    weight = static_cast<double>(terms.size()) / static_cast<double>(taken);
    return sample;
}

}  // namespace invidx
