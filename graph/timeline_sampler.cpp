#include "graph/timeline_sampler.hpp"

#include <algorithm>
#include <cmath>

#include "graph/resource_usage.hpp"
#include "graph/thread_names.hpp"
#include "graph/token_pool.hpp"
#include "invidx/error.hpp"

namespace invidx {
namespace {

// Rates to three decimals: the report stays small and readable.
double rounded(double value) { return std::round(value * 1000.0) / 1000.0; }

// Counters only grow, but a reading can race the increments of another:
// never a negative rate.
double rate(uint64_t now, uint64_t before, double seconds) {
    return now > before && seconds > 0 ? rounded(static_cast<double>(now - before) * 1e-9 / seconds) : 0.0;
}

}  // namespace

TimelineSampler::TimelineSampler(std::vector<Source> nodes, const TokenPool* tokens,
                                 std::chrono::microseconds interval, size_t max_rows)
    : nodes_(std::move(nodes)),
      tokens_(tokens),
      max_rows_(max_rows),
      start_(std::chrono::steady_clock::now()),
      interval_(interval) {
    ensure(interval.count() > 0, "a timeline's interval must be positive");
    ensure(max_rows >= 4, "a timeline keeps at least 4 rows");
    samples_.push_back(take());
    thread_ = std::thread([this] { run(); });
}

TimelineSampler::~TimelineSampler() { stop(); }

void TimelineSampler::stop() {
    {
        std::lock_guard lock(mutex_);
        if (stopping_) return;
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
    std::lock_guard lock(mutex_);
    keep(take());
}

TimelineSampler::Sample TimelineSampler::take() const {
    Sample sample;
    sample.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    sample.tokens_in_flight = tokens_ ? tokens_->in_flight() : 0;
    sample.cpu_seconds = process_cpu_seconds();
    for (const Source& node : nodes_) {
        sample.active.push_back(node.metrics->active.load());
        sample.busy_ns.push_back(node.metrics->busy_ns.load());
        sample.items_in.push_back(node.metrics->items_in.load());
        sample.items_out.push_back(node.metrics->items_out.load());
    }
    return sample;
}

void TimelineSampler::keep(Sample sample) {
    if (samples_.size() >= max_rows_) {
        // Every other sample goes, the first (time 0) stays: the rows left
        // are as far apart as the doubled interval.
        size_t kept = 0;
        for (size_t i = 0; i < samples_.size(); i += 2, ++kept)
            if (kept != i) samples_[kept] = std::move(samples_[i]);
        samples_.resize(kept);
        interval_ *= 2;
    }
    samples_.push_back(std::move(sample));
}

void TimelineSampler::run() {
    name_this_thread("invidx-timeline");
    std::unique_lock lock(mutex_);
    auto next = start_ + interval_;
    while (!wake_.wait_until(lock, next, [this] { return stopping_; })) {
        Sample sample = take();
        keep(std::move(sample));
        // The next instant on the (possibly doubled) grid, never in the past.
        next += interval_;
        const auto now = std::chrono::steady_clock::now();
        if (next < now) next = now + interval_;
    }
}

nlohmann::json TimelineSampler::to_json() const {
    std::lock_guard lock(mutex_);
    nlohmann::json columns = {"seconds", "tokens_in_flight", "cpu_cores"};
    for (const Source& node : nodes_) {
        columns.push_back(node.name + ".active");
        columns.push_back(node.name + ".busy");
        columns.push_back(node.name + ".items_in");
        columns.push_back(node.name + ".items_out");
    }
    nlohmann::json rows = nlohmann::json::array();
    for (size_t i = 1; i < samples_.size(); ++i) {
        const Sample& before = samples_[i - 1];
        const Sample& now = samples_[i];
        const double seconds = now.seconds - before.seconds;
        const double cpu_cores = seconds > 0 ? std::max(0.0, (now.cpu_seconds - before.cpu_seconds) / seconds) : 0.0;
        nlohmann::json row = {std::round(now.seconds * 1e6) / 1e6, now.tokens_in_flight, rounded(cpu_cores)};
        for (size_t n = 0; n < nodes_.size(); ++n) {
            row.push_back(now.active[n]);
            row.push_back(rate(now.busy_ns[n], before.busy_ns[n], seconds));
            row.push_back(now.items_in[n]);
            row.push_back(now.items_out[n]);
        }
        rows.push_back(std::move(row));
    }
    return {{"interval_seconds", std::chrono::duration<double>(interval_).count()},
            {"columns", std::move(columns)},
            {"rows", std::move(rows)}};
}

}  // namespace invidx
