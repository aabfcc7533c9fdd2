// Disjunctive (OR) queries without pruning: every document in any list is
// scored. The reference that maxscore_or must equal exactly.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "store/bm25.hpp"
#include "query/posting_cursor.hpp"
#include "query/query_stats.hpp"
#include "query/topk.hpp"

namespace invidx {

// `lists` in query order; `norms` is Bm25::length_norm of every document.
std::vector<ScoredDocument> exhaustive_or(std::span<const ScoredList> lists, std::span<const double> norms,
                                          const Bm25& bm25, size_t k, QueryStats* stats = nullptr);

}  // namespace invidx
