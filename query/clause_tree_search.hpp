// Queries whose clauses nest or prohibit a phrase (QueryPlan::clause_tree;
// docs/QUERY.md, "Query syntax"), evaluated exactly on the CPU. Every
// present term's list is decoded whole (the query layout's, else the run
// files'; with a phrase, the run files' with positions); candidates come
// from the intersection of the terms and phrases the whole query requires,
// or, without any, from the union of the lists outside prohibited clauses;
// each candidate is matched against the tree (query/clause_tree.hpp). A
// match scores the sum, in query-term order, of the contributions of the
// terms it holds that some clause outside a prohibition names, with their
// query weights, as every other algorithm sums them: the clauses decide
// which documents are returned, not what a document scores.
#pragma once

#include <vector>

#include "query/bm25_weighting.hpp"
#include "query/query_plan.hpp"
#include "query/query_stats.hpp"
#include "query/scored_index.hpp"
#include "query/topk.hpp"

namespace invidx {

// The top k of `plan`, which has a clause tree. BM25 by `bm25`; impact
// scoring sums the integer query weight × impact of
// query/impact_weights.hpp (check_query_plan saw the impacts; a plan with a
// phrase scores by BM25 only).
std::vector<ScoredDocument> clause_tree_search(const QueryPlan& plan, const ScoredIndex& index,
                                               const Bm25Weighting& bm25, QueryStats* stats);

}  // namespace invidx
