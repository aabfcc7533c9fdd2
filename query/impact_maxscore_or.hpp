// Block-max MaxScore for OR queries over quantized impacts, in integers.
//
// The same algorithm as maxscore_or (query/maxscore_or.hpp: essential and
// non-essential lists by their list maxima, a block-max bound per candidate
// read without decoding, non-essential lists probed while they can still
// lift the candidate above the threshold; the one loop of
// query/maxscore_loop.hpp), scored for ImpactBlockCursors only: scores,
// bounds and the threshold are integer sums of impacts times their query
// weights (uint32 where every sum fits, else uint64), and the top k is an
// ImpactTopK of 64-bit (or 128-bit) keys. Integer sums are exact in any order,
// so there is no per-term contribution array to sum in query order and no
// slack on the bounds: a bound that only ties the threshold prunes (the
// newcomer would rank after the kept document, docids arriving in
// increasing order).
//
// It returns exactly what maxscore_or over the same cursors returns (the
// brute-force top k of the integer scores, ties by smaller docid).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "query/impact_block_cursor.hpp"
#include "query/query_stats.hpp"
#include "query/topk.hpp"

namespace invidx {

// `cursors` fresh, in any order; they are moved.
std::vector<ScoredDocument> impact_maxscore_or(std::span<ImpactBlockCursor> cursors, size_t k, QueryStats* stats = nullptr);

}  // namespace invidx
