#include "query/query_cost_model.hpp"

#include <algorithm>
#include <cmath>


namespace invidx {

CostLine QueryCostModel::default_line(QueryDevice device, QueryMode mode) {
    // From docs/PERFORMANCE.md ("Query latency on the CPU", "Queries on the GPU"): the
    // CPU's block-max paths cost tens of µs plus a few ns per posting of the
    // lists; the GPU's time is nearly flat (~0.1 ms of clears, sort and
    // synchronizations) plus well under 1 ns per posting once cached.
    // AND-OR may run both, so its line is theirs added up (over Σ df).
    if (device == QueryDevice::kCpu) {
        return mode == QueryMode::kOr ? CostLine{20'000.0, 4.0} : mode == QueryMode::kAnd ? CostLine{10'000.0, 10.0} : CostLine{30'000.0, 8.0};
    }
    return mode == QueryMode::kOr ? CostLine{150'000.0, 0.3} : mode == QueryMode::kAnd ? CostLine{80'000.0, 0.3} : CostLine{230'000.0, 0.6};
}

QueryCostModel::QueryCostModel() {
    for (const QueryDevice device : {QueryDevice::kCpu, QueryDevice::kGpu}) {
        for (const QueryMode mode : {QueryMode::kAnd, QueryMode::kOr, QueryMode::kAndOr}) lines_[slot(device, mode)] = default_line(device, mode);
    }
}

size_t QueryCostModel::slot(QueryDevice device, QueryMode mode) {
    return (device == QueryDevice::kGpu ? 3 : 0) + static_cast<size_t>(mode);
}

double QueryCostModel::work(QueryDevice device, const QueryFeatures& features) {
    if (!features.runs_at_all) return 0.0;
    if (device == QueryDevice::kCpu && features.mode == QueryMode::kAnd) {
        return static_cast<double>(features.shortest) * static_cast<double>(features.terms);
    }
    return static_cast<double>(features.postings);
}

QueryCost QueryCostModel::estimate(const QueryFeatures& features) const {
    std::lock_guard lock(mutex_);
    return {lines_[slot(QueryDevice::kCpu, features.mode)].at(work(QueryDevice::kCpu, features)),
            lines_[slot(QueryDevice::kGpu, features.mode)].at(work(QueryDevice::kGpu, features))};
}

CostLine QueryCostModel::line(QueryDevice device, QueryMode mode) const {
    std::lock_guard lock(mutex_);
    return lines_[slot(device, mode)];
}

void QueryCostModel::set_line(QueryDevice device, QueryMode mode, CostLine line) {
    std::lock_guard lock(mutex_);
    lines_[slot(device, mode)] = line;
}

void QueryCostModel::set_learning(bool learning) {
    std::lock_guard lock(mutex_);
    learning_ = learning;
}

void QueryCostModel::record(QueryDevice device, QueryMode mode, double mean_work, double elapsed_ns, size_t queries) {
    if (queries == 0 || !std::isfinite(elapsed_ns) || elapsed_ns < 0.0) return;
    std::lock_guard lock(mutex_);
    if (!learning_) return;
    Fit& fit = fits_[slot(device, mode)];
    // A batch is one sample of its mean query, weighted by its size: for a
    // line, n·fixed + per_work·Σwork = elapsed is the same equation.
    const double weight = static_cast<double>(queries);
    const double y = elapsed_ns / weight;
    fit.samples += weight;
    fit.sum_x += weight * mean_work;
    fit.sum_y += weight * y;
    fit.sum_xx += weight * mean_work * mean_work;
    fit.sum_xy += weight * mean_work * y;
    if (fit.samples >= static_cast<double>(kMinimumSamples)) lines_[slot(device, mode)] = refit(fit, lines_[slot(device, mode)]);
}

CostLine QueryCostModel::refit(const Fit& fit, CostLine current) const {
    const double n = fit.samples;
    const double mean_x = fit.sum_x / n;
    const double mean_y = fit.sum_y / n;
    const double variance = fit.sum_xx / n - mean_x * mean_x;
    const double covariance = fit.sum_xy / n - mean_x * mean_y;
    // Queries of (nearly) one size cannot separate fixed from per-posting
    // cost: keep the current split of the line and scale it to the mean.
    if (!(variance > 1e-9 * std::max(1.0, mean_x * mean_x))) {
        const double predicted = current.at(mean_x);
        if (predicted <= 0.0) return {mean_y, 0.0};
        const double scale = mean_y / predicted;
        return {current.fixed_ns * scale, current.per_work_ns * scale};
    }
    CostLine fitted{mean_y - covariance / variance * mean_x, covariance / variance};
    // Costs never fall with more postings nor go below zero: clamp to the
    // nearest sensible line (flat at the mean, or through the origin).
    if (fitted.per_work_ns < 0.0) return {mean_y, 0.0};
    if (fitted.fixed_ns < 0.0) return {0.0, fit.sum_xx > 0.0 ? fit.sum_xy / fit.sum_xx : 0.0};
    return fitted;
}

}  // namespace invidx
