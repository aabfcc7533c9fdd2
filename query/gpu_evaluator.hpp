// The GPU's evaluator (devices/gpu_query.hpp, Ding et al. §5): the present
// terms of each plan become GpuQuery terms whose lists load on demand (bp128
// query layouts stay compressed on the device, other lists are decoded
// here), answered one plan at a time or a batch at once, with few kernel
// launches and one synchronization per batch. The same hits, scores and tie
// order as the CPU. Phrases are refused (they need the run files'
// positions). The device state is made on the first plan evaluated, on the
// GPU and with the cache size given here; a build without CUDA compiles this
// too, and then the first plan's QueryError says "built without CUDA".
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "devices/gpu_query.hpp"
#include "query/gpu_options.hpp"
#include "query/query_evaluator.hpp"
#include "query/scored_index.hpp"

namespace invidx {

class GpuEvaluator final : public QueryEvaluator {
public:
    // `index` must outlive this.
    GpuEvaluator(const ScoredIndex& index, GpuOptions options);
    ~GpuEvaluator() override;

    SearchResult evaluate(const QueryPlan& plan) const override;
    // The whole batch with few launches and one synchronization (split
    // where it holds more than max_batch() plans). The device answers one
    // mode, k, scoring and BM25 (k1, b) at a time: a batch that mixes them
    // goes as one device batch per kind.
    std::vector<SearchResult> evaluate_batch(std::span<const QueryPlan> plans) const override;
    // Plans answered together at most (by the accumulators' device memory).
    size_t max_batch() const;
    // The list cache and counters (empty before the first plan).
    GpuQueryStats stats() const;
    const GpuOptions& options() const { return options_; }

private:
    // The present terms of a plan, with how to load their lists; with
    // impacts, their integer query weights (query/impact_weights.hpp) and,
    // in *impact_scale_bits, the power of two the scores are divided by.
    GpuQuery gpu_query(const QueryPlan& plan, unsigned* impact_scale_bits = nullptr) const;
    // The pending plans (indexes into `plans`) evaluated like the first of
    // them, as one device batch, into `results`; returns the others.
    std::vector<size_t> answer_alike(std::span<const QueryPlan> plans, const std::vector<size_t>& pending,
                                     std::vector<SearchResult>& results) const;
    // Made on first use; mutex_ held.
    GpuQueryProcessor& processor() const;

    const ScoredIndex& index_;
    const GpuOptions options_;
    // One device queue, so the plans of many threads take turns.
    mutable std::mutex mutex_;
    mutable std::unique_ptr<GpuQueryProcessor> processor_;
};

}  // namespace invidx
