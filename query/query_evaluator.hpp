// What answers a QueryPlan: one evaluator per device (query/cpu_evaluator.hpp,
// query/gpu_evaluator.hpp), and wrappers that take any evaluator, such as
// and-or's (query/and_or_fallback.hpp). A Searcher's queries and the query
// scheduler's workers reach the devices through this interface only.
#pragma once

#include <span>
#include <vector>

#include "query/query_plan.hpp"
#include "query/search_result.hpp"

namespace invidx {

class QueryEvaluator {
public:
    virtual ~QueryEvaluator() = default;
    // The top k of one plan, made by plan_query (checked). kAnd ranks the
    // documents with every term, any other mode those with any (kAndOr
    // takes AndOrFallback); safe to call from many threads at once.
    virtual SearchResult evaluate(const QueryPlan& plan) const = 0;
    // Many plans, results in their order. By default one at a time; a
    // device that answers a batch at once overrides it.
    virtual std::vector<SearchResult> evaluate_batch(std::span<const QueryPlan> plans) const;
};

// A plan's result before evaluation: its terms and mode, no hit yet (what a
// plan that matches_nothing() returns).
SearchResult unevaluated_result(const QueryPlan& plan);

}  // namespace invidx
