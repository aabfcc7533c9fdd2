// Per-node counters, filled while the graph runs and read for the report.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <time.h>

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
    // CPU time its threads used inside the bodies: below busy_ns when they
    // waited for a core (oversubscribed) or for a device.
    std::atomic<uint64_t> busy_cpu_ns{0};
    std::atomic<uint64_t> wait_output_ns{0};  // time a body spent blocked handing work on
    std::atomic<int64_t> active{0};           // bodies inside busy_scope() now (report.json "timeline")

    // Adds the lifetime of the scope to a wall-time sink and, when given one,
    // the calling thread's CPU time over it to a CPU-time sink:
    // `auto busy = metrics.busy_scope();`. A scope must end on the thread it
    // began on (a body's scope does).
    class BusyScope {
    public:
        explicit BusyScope(std::atomic<uint64_t>& wall_sink) : BusyScope(wall_sink, nullptr) {}
        BusyScope(std::atomic<uint64_t>& wall_sink, std::atomic<uint64_t>& cpu_sink)
            : BusyScope(wall_sink, &cpu_sink) {}
        ~BusyScope() {
            if (active_) --*active_;
            // The CPU interval lies inside the wall one: read first, read last.
            if (cpu_sink_) {
                const uint64_t cpu_end = thread_cpu_time_ns();
                if (cpu_start_ != 0 && cpu_end > cpu_start_) *cpu_sink_ += cpu_end - cpu_start_;
            }
            wall_sink_ += static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                    std::chrono::steady_clock::now() - start_)
                                                    .count());
        }
        BusyScope(const BusyScope&) = delete;
        BusyScope& operator=(const BusyScope&) = delete;

    private:
        friend struct NodeMetrics;
        BusyScope(std::atomic<uint64_t>& wall_sink, std::atomic<uint64_t>* cpu_sink,
                  std::atomic<int64_t>* active = nullptr)
            : wall_sink_(wall_sink),
              cpu_sink_(cpu_sink),
              active_(active),
              start_(std::chrono::steady_clock::now()),
              cpu_start_(cpu_sink ? thread_cpu_time_ns() : 0) {
            if (active_) ++*active_;
        }

        // The calling thread's CPU time so far (user + system), 0 if unknown.
        static uint64_t thread_cpu_time_ns() noexcept {
            timespec now{};
            if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) != 0) return 0;
            return static_cast<uint64_t>(now.tv_sec) * 1000000000u + static_cast<uint64_t>(now.tv_nsec);
        }

        std::atomic<uint64_t>& wall_sink_;
        std::atomic<uint64_t>* cpu_sink_;
        std::atomic<int64_t>* active_;
        std::chrono::steady_clock::time_point start_;  // before cpu_start_: members start in this order
        uint64_t cpu_start_;
    };
    BusyScope busy_scope() { return BusyScope(busy_ns, &busy_cpu_ns, &active); }
    BusyScope wait_output_scope() { return BusyScope(wait_output_ns); }
};

}  // namespace invidx
