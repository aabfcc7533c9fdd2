// Disjunctive (OR) queries with MaxScore dynamic pruning (Turtle & Flood,
// "Query evaluation: strategies and optimizations", IPM 1995; the
// document-at-a-time form of Strohman, Turtle & Croft, SIGIR 2005, and
// Mallia et al., ECIR 2019).
//
// Terms are ordered by their upper bound (the largest contribution any of
// their postings can make). Once the top k is full with threshold θ, the
// longest prefix of that order whose bounds sum to at most θ is
// "non-essential": a document containing only those terms cannot enter the
// top k, so candidates come from the essential lists only, and non-essential
// lists are only probed (by galloping) while the candidate's score plus the
// bounds still to add could beat θ.
//
// The result is exactly the exhaustive top k (exhaustive_or): the same
// documents, the same scores bit for bit (contributions summed in query
// order), the same order. Bounds are compared with a relative slack of 1e-10
// so that floating-point rounding of the partial sums can never prune a
// document that would have entered.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "query/bm25.hpp"
#include "query/posting_cursor.hpp"
#include "query/query_stats.hpp"
#include "query/topk.hpp"

namespace invidx {

// `lists` in query order (the summing order), with max_score set;
// `norms` is Bm25::length_norm of every document.
std::vector<ScoredDocument> maxscore_or(std::span<const ScoredList> lists, std::span<const double> norms,
                                        const Bm25& bm25, size_t k, QueryStats* stats = nullptr);

}  // namespace invidx
