// What a query algorithm needs from one term's postings, stated as concepts
// as PISA states its posting cursors (include/pisa/concepts/posting_cursor.hpp),
// so that the same document-at-a-time code runs over decoded arrays
// (PostingCursor: run files) and over the query layout's blocks (BlockCursor:
// query.post), and each cursor is checked by the compiler against it.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>

namespace invidx {

template <class C>
concept ScoringCursor = requires(C cursor, const C& view, uint32_t target) {
    { view.docid() } -> std::same_as<uint32_t>;  // kNoDocument once past the end
    { cursor.next() } -> std::same_as<void>;
    { cursor.next_geq(target) } -> std::same_as<void>;  // first docid >= target, never backwards
    { cursor.tf() } -> std::same_as<uint32_t>;          // of the current posting (may decode)
    { view.idf() } -> std::same_as<double>;
    { view.size() } -> std::convertible_to<size_t>;     // postings in the list (df)
    { view.max_score() } -> std::same_as<double>;       // idf · largest tf part of the list
};

// Block-max (Ding & Suel, SIGIR 2011): an upper bound on the score of any
// posting of the block that holds a docid, read without decoding the block.
// "Shallow": the bound's block moves forward on its own; the posting the
// cursor is on does not move.
template <class C>
concept BlockMaxCursor = ScoringCursor<C> && requires(C cursor, uint32_t target) {
    // idf · max tf part of the first block whose last docid is >= target (0 if none).
    { cursor.block_max_score(target) } -> std::same_as<double>;
    // That block's last docid (kNoDocument if none), after block_max_score.
    { cursor.block_last_docid() } -> std::same_as<uint32_t>;
};

}  // namespace invidx
