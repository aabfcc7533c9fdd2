// BM25 with one k1 and b over an opened index (CONTENT.md §10): the Bm25,
// every document's length norm, and upper bounds of the query layout's
// blocks that hold for this k1 and b.
//
// query.post stores each block's largest tf part computed with the k1 and b
// the layout was made with (docs/FORMAT.md, "query.post"). For those
// parameters the stored maxima are exact and used as they are. For any other
// k1 and b they bound nothing, so a weighting offers two kinds of bounds:
//   - exact_maxima: each block's largest tf part for this k1 and b,
//     recomputed from the list (every block decoded once) on a term's first
//     use and kept, so later queries of the same term prune as well as with
//     stored maxima;
//   - derived_maxima: a bound from the stored maximum alone, no decoding: a
//     stored m bounds tf/n0 ≤ m / (k1₀ + 1 − m) for every posting of the
//     block (n0: the document's norm with the layout's k1₀, b₀); the new
//     norm is at least ρ·n0, ρ the smallest ratio of the two norms over the
//     collection, so the new tf part (k1+1)/(1 + n/tf) is at most
//     (k1+1)·r/(r + ρ) with r that bound of tf/n0. Never above k1 + 1.
// Both are widened by a relative 1e-12 against rounding; pruning widens
// them again (query/pruning.hpp), so results stay the exhaustive top k.
//
// Read-only once made but for the kept exact maxima (guarded), so shared by
// every thread and query plan that scores with this k1 and b.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

#include "store/bm25.hpp"
#include "store/index_reader.hpp"
#include "store/query_postings.hpp"

namespace invidx {

// Block bounds of one list for a weighting: tf parts (without idf), one per block.
struct BlockMaxima {
    std::vector<double> blocks;
    double list = 0.0;  // the largest of them
};

class Bm25Weighting {
public:
    // Reads every document's length (in parallel). `layout`: the index's
    // query layout, or null; it must outlive this.
    Bm25Weighting(const IndexReader& index, Bm25Parameters parameters, const QueryPostings* layout);
    Bm25Weighting(const Bm25Weighting&) = delete;
    Bm25Weighting& operator=(const Bm25Weighting&) = delete;

    const Bm25& bm25() const { return bm25_; }
    const Bm25Parameters& parameters() const { return bm25_.parameters(); }
    const std::vector<double>& length_norms() const { return norms_; }  // by docid
    // Unique among the weightings this process makes, never 0 (names the
    // norms a GPU holds: devices/gpu_query.hpp's use_bm25).
    uint64_t id() const { return id_; }

    // Whether the query layout's stored block maxima are this BM25's own
    // (made with the same k1 and b): then no other bounds are needed.
    bool stored_maxima_fit() const { return stored_fit_; }

    // Each block's largest tf part of term `term`'s `list` for this k1 and
    // b: computed on the term's first call (every block decoded) and kept.
    // Null when the stored maxima fit.
    std::shared_ptr<const BlockMaxima> exact_maxima(uint64_t term, const QueryList& list) const;
    // The exact maxima when some query has computed them, else bounds
    // derived from the stored maxima without decoding anything. Null when
    // the stored maxima fit.
    std::shared_ptr<const BlockMaxima> cheap_maxima(uint64_t term, const QueryList& list) const;
    // The derived bound of one stored block maximum (public for the tests).
    double derived_bound(double stored_max_tf_part) const;

private:
    uint64_t id_;
    Bm25 bm25_;
    std::vector<double> norms_;
    bool stored_fit_ = true;
    Bm25Parameters stored_;     // the layout's k1 and b
    double norm_ratio_ = 0.0;   // ρ: min over documents of norm / the layout's norm; < 0: unknown
    mutable std::mutex mutex_;  // guards exact_
    mutable std::unordered_map<uint64_t, std::shared_ptr<const BlockMaxima>> exact_;  // by term
};

}  // namespace invidx
