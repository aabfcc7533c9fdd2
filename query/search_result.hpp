// What a query's evaluation returns: its terms, its top k, and the work done.
#pragma once

#include <vector>

#include "query/query_mode.hpp"
#include "query/query_stats.hpp"
#include "query/query_terms.hpp"
#include "query/topk.hpp"

namespace invidx {

struct SearchResult {
    QueryTerms terms;
    std::vector<ScoredDocument> hits;  // best first
    QueryStats stats;  // kAndOr: both evaluations' together
    QueryMode answered_as = QueryMode::kOr;  // kAnd or kOr: the evaluation whose hits these are
};

}  // namespace invidx
