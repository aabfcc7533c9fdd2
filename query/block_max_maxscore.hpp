// Disjunctive (OR) queries on the query layout with block-max MaxScore:
// MaxScore (query/maxscore_or.hpp) over BlockCursors, with the block maxima
// of query.post tightening its bounds (Chakrabarti, Chaudhuri & Ganti, ICDE
// 2011; Dimopoulos, Nepomnyachiy & Suel, WSDM 2013; Mallia et al., ECIR 2019).
//
// As in MaxScore, terms are ordered by list bound, the prefix whose bounds
// add up to at most the threshold θ is non-essential, and candidates come from
// the essential lists. Then, per candidate, before anything is decoded:
//   - the block maxima of the candidate's blocks (essential lists on it, and
//     every non-essential list, read "shallow" without decoding) add up to a
//     bound for every docid up to the end of the first of those blocks; if it
//     cannot beat θ, the essential cursors jump past that end, so whole blocks
//     of the essential lists go by undecoded;
//   - otherwise the essential lists' tfs are decoded and scored, and the
//     non-essential lists are probed (next_geq, skipping blocks), largest
//     bound first, only while the partial score plus their block maxima can
//     still beat θ.
// The result is exactly the exhaustive top k: bounds are widened by
// query/pruning.hpp's slack, scores are summed in query order.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "query/block_cursor.hpp"
#include "query/bm25.hpp"
#include "query/query_stats.hpp"
#include "query/topk.hpp"

namespace invidx {

// `cursors` in query order (the summing order), fresh; they are moved.
// `norms` is Bm25::length_norm of every document.
std::vector<ScoredDocument> block_max_maxscore(std::span<BlockCursor> cursors, std::span<const double> norms,
                                               const Bm25& bm25, size_t k, QueryStats* stats = nullptr);

}  // namespace invidx
