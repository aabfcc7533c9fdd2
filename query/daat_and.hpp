// Conjunctive (AND) queries, document at a time: candidates come from the
// shortest list, every other list skips to them by galloping.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "query/bm25.hpp"
#include "query/posting_cursor.hpp"
#include "query/query_stats.hpp"
#include "query/topk.hpp"

namespace invidx {

// The top k documents containing every list's term. `lists` in query order
// (the summing order); `norms` is Bm25::length_norm of every document.
std::vector<ScoredDocument> daat_and(std::span<const ScoredList> lists, std::span<const double> norms, const Bm25& bm25,
                                     size_t k, QueryStats* stats = nullptr);

}  // namespace invidx
