// `--mode and-or` over any evaluator (Ding et al. §8.3: an AND with enough
// results ranks as well as the OR and costs far less): the AND first; when
// it finds fewer than k documents, the OR top k instead, whose stats then
// add the AND's. Plans in kAnd or kOr mode pass straight through. A batch
// runs its AND plans together, then the OR plans of those that fell short
// together, so a device that answers batches at once still does.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "query/query_evaluator.hpp"

namespace invidx {

// The rule: the AND answers when it found at least k documents.
inline bool and_suffices(const SearchResult& conjunctive, size_t k) { return conjunctive.hits.size() >= k; }

class AndOrFallback final : public QueryEvaluator {
public:
    // `inner` must outlive this.
    explicit AndOrFallback(const QueryEvaluator& inner) : inner_(inner) {}

    SearchResult evaluate(const QueryPlan& plan) const override;
    std::vector<SearchResult> evaluate_batch(std::span<const QueryPlan> plans) const override;

private:
    const QueryEvaluator& inner_;
};

}  // namespace invidx
