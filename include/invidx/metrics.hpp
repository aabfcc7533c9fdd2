// Per-node counters, filled while the graph runs and read for the report.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace invidx {

struct NodeMetrics {
    std::string name;            // the node's name in the pipeline
    std::string kind;            // its registered kind
    unsigned concurrency = 1;
    std::atomic<uint64_t> items_in{0};
    std::atomic<uint64_t> items_out{0};
    std::atomic<uint64_t> bytes_in{0};
    std::atomic<uint64_t> bytes_out{0};
    std::atomic<uint64_t> busy_ns{0};         // time inside the node's bodies, all threads
    std::atomic<uint64_t> wait_output_ns{0};  // time a body spent blocked handing work on

    // Adds the lifetime of the scope to busy_ns: `auto busy = metrics.busy_scope();`
    class BusyScope {
    public:
        explicit BusyScope(std::atomic<uint64_t>& sink)
            : sink_(sink), start_(std::chrono::steady_clock::now()) {}
        ~BusyScope() {
            sink_ += static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                               std::chrono::steady_clock::now() - start_)
                                               .count());
        }
        BusyScope(const BusyScope&) = delete;
        BusyScope& operator=(const BusyScope&) = delete;

    private:
        std::atomic<uint64_t>& sink_;
        std::chrono::steady_clock::time_point start_;
    };
    BusyScope busy_scope() { return BusyScope(busy_ns); }
    BusyScope wait_output_scope() { return BusyScope(wait_output_ns); }
};

}  // namespace invidx
