// A build's timeline (report.json "timeline"; off unless the pipeline says
// "report": {"timeline_ms": N}). The report's node totals average a build
// over its whole run, so they cannot tell a stage that is busy all along
// from one that is idle while the graph fills and flat out while it drains.
// Every N ms a thread of its own reads the tokens in flight, the process's
// CPU time and each node's cumulative counters (items in and out, busy time);
// each row then gives the rates over the interval before it.
// Memory stays bounded: at `max_rows` rows every other row goes and the
// interval doubles (the counters are cumulative, so no work is lost).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/metrics.hpp"

namespace invidx {

class TokenPool;

class TimelineSampler {
public:
    struct Source {
        std::string name;  // the node's name in the pipeline
        const NodeMetrics* metrics = nullptr;
    };

    // Takes the first sample (time 0) and starts sampling. `tokens` may be
    // null (its column then reads 0).
    TimelineSampler(std::vector<Source> nodes, const TokenPool* tokens, std::chrono::microseconds interval,
                    size_t max_rows = 4096);
    ~TimelineSampler();
    TimelineSampler(const TimelineSampler&) = delete;
    TimelineSampler& operator=(const TimelineSampler&) = delete;

    // Takes the last sample and joins the thread; once is enough, more do nothing.
    void stop();

    // After stop(): {"interval_seconds", "columns", "rows"}. Columns:
    // "seconds" (since the first sample), "tokens_in_flight", "cpu_cores"
    // (the process's CPU seconds per second over the interval before the
    // row), then per node "<name>.active" (its bodies running at the
    // instant of the row), "<name>.busy" (the mean number running over the
    // interval: busy seconds per second; a body counts when it ends, so over
    // intervals shorter than a body this is lumpy), "<name>.items_in" and
    // "<name>.items_out" (cumulative).
    nlohmann::json to_json() const;

private:
    struct Sample {
        double seconds = 0;
        uint32_t tokens_in_flight = 0;
        double cpu_seconds = 0;  // the process's, so far
        std::vector<uint64_t> busy_ns, items_in, items_out;
        std::vector<int64_t> active;
    };

    Sample take() const;
    void keep(Sample sample);  // with the lock held
    void run();

    const std::vector<Source> nodes_;
    const TokenPool* const tokens_;
    const size_t max_rows_;
    const std::chrono::steady_clock::time_point start_;
    std::chrono::microseconds interval_;  // doubled as rows are thinned

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::vector<Sample> samples_;
    std::thread thread_;
};

}  // namespace invidx
