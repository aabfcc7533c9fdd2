// What a query algorithm needs from one term's postings, stated as concepts
// as PISA states its posting cursors (include/pisa/concepts/posting_cursor.hpp),
// so that the same document-at-a-time code runs over decoded arrays
// (PostingCursor: run files), over the query layout's blocks (BlockCursor:
// query.post) and over its quantized impacts (ImpactBlockCursor), and each
// cursor is checked by the compiler against it.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>

#include "store/bm25.hpp"

namespace invidx {

// Moving through a list's docids, and the list's bound.
template <class C>
concept DocumentCursor = requires(C cursor, const C& view, uint32_t target) {
    { view.docid() } -> std::same_as<uint32_t>;  // kNoDocument once past the end
    { cursor.next() } -> std::same_as<void>;
    { cursor.next_geq(target) } -> std::same_as<void>;  // first docid >= target, never backwards
    { view.size() } -> std::convertible_to<size_t>;     // postings in the list (df)
    { view.max_score() } -> std::same_as<double>;       // the largest contribution of any posting
};

// Scored by BM25 at query time: idf · tf part (max_score: idf · largest tf part).
template <class C>
concept TfCursor = DocumentCursor<C> && requires(C cursor, const C& view) {
    { cursor.tf() } -> std::same_as<uint32_t>;  // of the current posting (may decode)
    { view.idf() } -> std::same_as<double>;
};

// Scored by a precomputed integer impact times an integer query weight
// (max_score: the list's largest impact times it).
template <class C>
concept ImpactCursor = DocumentCursor<C> && requires(C cursor) {
    { cursor.impact() } -> std::same_as<uint64_t>;  // of the current posting (may decode), weighted
};

template <class C>
concept ScoringCursor = TfCursor<C> || ImpactCursor<C>;

// The current posting's contribution to its document's score; `norm` is the
// document's Bm25::length_norm (unused by impact cursors). Weighted impacts
// are integers below 2^53 (query/impact_weights.hpp), exact as doubles, so
// their sums are exact whatever the order.
template <ScoringCursor C>
double posting_score(C& cursor, const Bm25& bm25, double norm) {
    if constexpr (ImpactCursor<C>) {
        return static_cast<double>(cursor.impact());
    } else {
        return bm25.score(cursor.idf(), cursor.tf(), norm);
    }
}

// The document's length norm, read only by cursors that score with it.
template <ScoringCursor C>
double norm_for(const double* norms, uint32_t docid) {
    if constexpr (ImpactCursor<C>) {
        return 0.0;
    } else {
        return norms[docid];
    }
}

// Block-max (Ding & Suel, SIGIR 2011): an upper bound on the score of any
// posting of the block that holds a docid, read without decoding the block.
// "Shallow": the bound's block moves forward on its own; the posting the
// cursor is on does not move.
template <class C>
concept BlockMaxCursor = ScoringCursor<C> && requires(C cursor, uint32_t target) {
    // The bound of the first block whose last docid is >= target (0 if none):
    // idf · max tf part, or the block's largest impact.
    { cursor.block_max_score(target) } -> std::same_as<double>;
    // That block's last docid (kNoDocument if none), after block_max_score.
    { cursor.block_last_docid() } -> std::same_as<uint32_t>;
};

}  // namespace invidx
