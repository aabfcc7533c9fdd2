#include "query/query_evaluator.hpp"

namespace invidx {

std::vector<SearchResult> QueryEvaluator::evaluate_batch(std::span<const QueryPlan> plans) const {
    std::vector<SearchResult> results;
    results.reserve(plans.size());
    for (const auto& plan : plans) results.push_back(evaluate(plan));
    return results;
}

SearchResult unevaluated_result(const QueryPlan& plan) {
    SearchResult result;
    result.terms = plan.terms;
    result.answered_as = plan.mode;
    return result;
}

}  // namespace invidx
