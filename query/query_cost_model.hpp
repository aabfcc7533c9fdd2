// Estimated cost of a query on the CPU and on the GPU, from its list lengths
// (Ding et al. §9: the scheduler needs both costs before the query runs). The
// paper fits a rule model to four features; here each (device, mode) pair has
// a line, cost = fixed + per_posting · work, whose "work" is what that device
// actually touches:
//   CPU OR     Σ df of the present terms (MaxScore reads every list, pruned)
//   CPU AND    shortest df · present terms (candidates come from the
//              shortest list; the others are probed by skipping)
//   CPU AND-OR Σ df (the OR may follow the AND)
//   GPU        Σ df (exhaustive accumulation, one term at a time, any mode)
// The lines start from defaults measured on the GPU machine
// (docs/PERFORMANCE.md, "Query latency on the CPU" and "Queries on the GPU") and are refitted online by least squares over the
// measured times of the queries already run, so they follow the machine, the
// collection and k.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "query/query_device.hpp"
#include "query/query_mode.hpp"

namespace invidx {

// What the cost model reads of a query: its analyzed terms' lists
// (query_features in query/searcher_processors.hpp makes them).
struct QueryFeatures {
    QueryMode mode = QueryMode::kOr;
    size_t k = 10;
    size_t terms = 0;           // distinct terms present in the index
    uint64_t postings = 0;      // Σ df of those terms
    uint64_t shortest = 0;      // the smallest df among them
    bool runs_at_all = false;   // false: no term left, or AND with an absent term (answered at once)
    bool phrase = false;        // phrases run on the CPU only
};

// cost_ns = fixed_ns + per_work_ns · work
struct CostLine {
    double fixed_ns = 0.0;
    double per_work_ns = 0.0;
    double at(double work) const { return fixed_ns + per_work_ns * work; }
};

struct QueryCost {
    double cpu_ns = 0.0;
    double gpu_ns = 0.0;
};

class QueryCostModel {
public:
    // The untrained lines (single-query --device auto uses these).
    static CostLine default_line(QueryDevice device, QueryMode mode);

    QueryCostModel();

    // The work a device does for the query (see the top of this file).
    static double work(QueryDevice device, const QueryFeatures& features);

    QueryCost estimate(const QueryFeatures& features) const;
    CostLine line(QueryDevice device, QueryMode mode) const;

    // A measured run: `queries` queries whose mean work was `mean_work` took
    // `elapsed_ns` in all (a GPU batch is one sample of its mean query).
    void record(QueryDevice device, QueryMode mode, double mean_work, double elapsed_ns, size_t queries = 1);

    // Fixed lines, no learning (tests, and callers that calibrated beforehand).
    void set_line(QueryDevice device, QueryMode mode, CostLine line);
    void set_learning(bool learning);

    // Samples below this keep the current line (a few cold first queries would
    // swing a fit).
    static constexpr size_t kMinimumSamples = 8;

private:
    // Running sums of a least-squares fit of y = a + b·x.
    struct Fit {
        double samples = 0.0;
        double sum_x = 0.0;
        double sum_y = 0.0;
        double sum_xx = 0.0;
        double sum_xy = 0.0;
    };
    static size_t slot(QueryDevice device, QueryMode mode);
    CostLine refit(const Fit& fit, CostLine current) const;

    mutable std::mutex mutex_;
    bool learning_ = true;
    std::array<CostLine, 6> lines_{};  // by device, then mode
    std::array<Fit, 6> fits_{};
};

}  // namespace invidx
