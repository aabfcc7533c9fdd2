#include "query/and_or_fallback.hpp"

#include <algorithm>
#include <utility>

namespace invidx {

namespace {

bool falls_back(const QueryPlan& plan) { return plan.mode == QueryMode::kAndOr; }

// The OR's result in place of the AND's, with both evaluations' work.
void replace_by_disjunctive(SearchResult& conjunctive, SearchResult&& disjunctive) {
    disjunctive.stats += conjunctive.stats;
    conjunctive = std::move(disjunctive);
}

}  // namespace

SearchResult AndOrFallback::evaluate(const QueryPlan& plan) const {
    if (!falls_back(plan)) return inner_.evaluate(plan);
    SearchResult result = inner_.evaluate(plan.in_mode(QueryMode::kAnd));
    if (and_suffices(result, plan.k)) return result;
    replace_by_disjunctive(result, inner_.evaluate(plan.in_mode(QueryMode::kOr)));
    return result;
}

std::vector<SearchResult> AndOrFallback::evaluate_batch(std::span<const QueryPlan> plans) const {
    if (std::none_of(plans.begin(), plans.end(), falls_back)) return inner_.evaluate_batch(plans);
    std::vector<QueryPlan> first;
    first.reserve(plans.size());
    for (const auto& plan : plans) first.push_back(falls_back(plan) ? plan.in_mode(QueryMode::kAnd) : plan);
    std::vector<SearchResult> results = inner_.evaluate_batch(first);
    std::vector<QueryPlan> again;
    std::vector<size_t> where;  // the result each of `again` replaces
    for (size_t i = 0; i < plans.size(); ++i) {
        if (!falls_back(plans[i]) || and_suffices(results[i], plans[i].k)) continue;
        again.push_back(plans[i].in_mode(QueryMode::kOr));
        where.push_back(i);
    }
    if (again.empty()) return results;
    std::vector<SearchResult> second = inner_.evaluate_batch(again);
    for (size_t j = 0; j < where.size(); ++j) replace_by_disjunctive(results[where[j]], std::move(second[j]));
    return results;
}

}  // namespace invidx
