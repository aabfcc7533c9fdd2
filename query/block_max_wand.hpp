// Disjunctive (OR) queries on the query layout with Block-Max WAND (Ding &
// Suel, "Faster top-k document retrieval using block-max indexes", SIGIR
// 2011, Algorithm 2; the cursor moves of PISA's block_max_wand).
//
// Cursors are kept sorted by current docid. WAND's pivot is the first cursor
// at which the sum of list bounds (idf · the list's largest tf part) exceeds
// the threshold θ: no document before the pivot's docid can enter. Then the
// block maxima of the pivot's docid, read from the skip entries without
// decoding (BlockCursor::block_max_score), give a tighter bound:
//   - it can beat θ and every cursor up to the pivot is on the pivot's
//     docid: the document is scored (tfs decoded now, summed in query order);
//   - it can beat θ but some cursor lags: that cursor moves to the pivot's
//     docid (decoding the one block it lands in);
//   - it cannot: no document from the pivot's docid up to the end of the
//     shortest of those blocks (or the next cursor's docid) can enter, and
//     the cursor with the largest bound jumps past it, over whole blocks.
//
// The result is exactly the exhaustive top k (exhaustive_or): bounds are
// widened by query/pruning.hpp's slack, scores are summed in query order.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "query/block_cursor.hpp"
#include "store/bm25.hpp"
#include "query/query_stats.hpp"
#include "query/topk.hpp"

namespace invidx {

// `cursors` in query order (the summing order), fresh; they are moved.
// `norms` is Bm25::length_norm of every document.
std::vector<ScoredDocument> block_max_wand(std::span<BlockCursor> cursors, std::span<const double> norms, const Bm25& bm25,
                                           size_t k, QueryStats* stats = nullptr);

}  // namespace invidx
