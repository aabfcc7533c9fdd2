// Queries with required and prohibited clauses (`+fox -dog`, `fox AND NOT
// dog`; docs/QUERY.md, "Query syntax"), without phrases (those take
// query/phrase_search.hpp, which applies the same roles). A document matches
// when it holds every required term, no prohibited term and, when no term
// is required, at least one optional term; its score is the sum, in
// query-term order, of its non-prohibited terms' contributions, as every
// other algorithm sums them, so a document scores bit for bit what it
// scores for the same terms without operators (boosts included). Lists are
// decoded whole (the query layout's, else the run files'); candidates come
// from the intersection of the required lists (shortest first, galloping)
// or, with no required term, from the union of the optional ones; every
// candidate is checked against the prohibited lists and scored over every
// term (no dynamic pruning).
#pragma once

#include <vector>

#include "query/bm25_weighting.hpp"
#include "query/query_plan.hpp"
#include "query/query_stats.hpp"
#include "query/scored_index.hpp"
#include "query/topk.hpp"

namespace invidx {

// The top k of `plan` (its roles; kAnd makes every term that is not
// prohibited required). BM25 by `bm25`; impact scoring sums the integer
// query weight × impact of query/impact_weights.hpp, as the impact paths do
// (the query layout's impacts, check_query_plan saw them).
std::vector<ScoredDocument> boolean_search(const QueryPlan& plan, const ScoredIndex& index,
                                           const Bm25Weighting& bm25, QueryStats* stats);

}  // namespace invidx
