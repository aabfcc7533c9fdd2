// How long items waited between two points of the graph: count, mean and
// longest, from any number of threads (report: the frame node's and the
// parse node's batch waits). An item without a start time is not counted.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

#include <nlohmann/json.hpp>

namespace invidx {

class LatencyStat {
public:
    using Clock = std::chrono::steady_clock;

    void add(Clock::time_point since, Clock::time_point now) {
        if (since == Clock::time_point{}) return;
        const auto ns = static_cast<uint64_t>(std::max<int64_t>(
            0, std::chrono::duration_cast<std::chrono::nanoseconds>(now - since).count()));
        ++count_;
        sum_ns_ += ns;
        uint64_t longest = max_ns_.load();
        while (ns > longest && !max_ns_.compare_exchange_weak(longest, ns)) {
        }
    }

    uint64_t count() const { return count_.load(); }
    double mean_seconds() const {
        const uint64_t n = count_.load();
        return n == 0 ? 0.0 : static_cast<double>(sum_ns_.load()) * 1e-9 / static_cast<double>(n);
    }
    double max_seconds() const { return static_cast<double>(max_ns_.load()) * 1e-9; }
    nlohmann::json to_json() const { return {{"count", count()}, {"mean", mean_seconds()}, {"max", max_seconds()}}; }

private:
    std::atomic<uint64_t> count_{0};
    std::atomic<uint64_t> sum_ns_{0};
    std::atomic<uint64_t> max_ns_{0};
};

}  // namespace invidx
