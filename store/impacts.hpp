// Precomputed, quantized BM25 impacts (the "quantized index" of PISA and of
// Anh & Moffat's impact-ordered indexes): every posting's BM25 weight
// (CONTENT.md §10, computed from the index's own N, df, dl, avgdl and the k1, b its
// query layout records) mapped linearly to an integer in [1, 2^bits − 1], so
// that a query scores a document by adding small integers instead of
// evaluating BM25 per posting, and block maxima are integers too.
//
// The quantizer is linear over the index's largest weight, as PISA's
// LinearQuantizer: impact = ceil(w / max_weight · (2^bits − 1)), clamped to
// [1, 2^bits − 1]. Ceiling rather than floor: every weight is > 0 (idf and the
// tf part are both positive), so every posting gets at least 1 without a
// wider first bucket, each impact i stands for the weights in
// ((i − 1)/range, i/range]·max_weight, and the largest weight maps to exactly
// 2^bits − 1. It is monotone: a larger weight never gets a smaller impact.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "store/bm25.hpp"
#include "store/index_reader.hpp"

namespace invidx {

inline constexpr unsigned kMinImpactBits = 1;
inline constexpr unsigned kMaxImpactBits = 16;
inline constexpr unsigned kDefaultImpactBits = 8;

class ImpactQuantizer {
public:
    // max_weight > 0 and finite, bits in [kMinImpactBits, kMaxImpactBits]; an Error otherwise.
    ImpactQuantizer(double max_weight, unsigned bits);

    double max_weight() const { return max_weight_; }
    unsigned bits() const { return bits_; }
    uint32_t max_impact() const { return range_; }  // 2^bits − 1

    uint32_t operator()(double weight) const {
        const double scaled = std::ceil(weight / max_weight_ * static_cast<double>(range_));
        if (!(scaled >= 1.0)) return 1;  // also NaN: never reached for BM25 weights
        return scaled >= static_cast<double>(range_) ? range_ : static_cast<uint32_t>(scaled);
    }

private:
    double max_weight_;
    unsigned bits_;
    uint32_t range_;
};

// Impacts computed elsewhere (on a GPU: devices/gpu_weights.hpp), for the
// query-layout writer to store instead of quantizing weights of its own:
// term t's postings, in dictionary and docid order, have the impacts
// [term_offsets[t], term_offsets[t + 1]) of `impacts`, each in
// [1, 2^bits − 1], quantized linearly over max_weight as ImpactQuantizer
// does. Two bytes a posting: bits are at most 16.
struct PostingImpacts {
    unsigned bits = kDefaultImpactBits;
    double max_weight = 1.0;
    std::vector<uint64_t> term_offsets;  // term count + 1 entries
    std::vector<uint16_t> impacts;
};

// Every posting's weight idf(df)·tf_part(tf, norms[docid]) (Bm25::score),
// written to out (out.size() == docids.size() == tfs.size()).
void posting_weights(const Bm25& bm25, uint64_t df, std::span<const uint32_t> docids, std::span<const uint32_t> tfs,
                     std::span<const double> norms, std::span<double> out);

// Bm25::length_norm of every document of the index, in parallel.
std::vector<double> length_norms(const IndexReader& index, const Bm25& bm25);

// The largest posting weight of the index (0 when it has no postings): the
// quantizer's max_weight. Every list is decoded, terms in parallel (tbb).
double max_posting_weight(const IndexReader& index, const Bm25& bm25, std::span<const double> norms);

}  // namespace invidx
