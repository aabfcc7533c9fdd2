// NodeMetrics' busy scopes: wall time into busy_ns, and the calling thread's
// CPU time into busy_cpu_ns, so that a node whose threads wait (for a core,
// for a device) shows less CPU than busy time.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <thread>
#include <time.h>

#include "invidx/metrics.hpp"

using invidx::NodeMetrics;

namespace {

constexpr uint64_t kFiftyMs = 50'000'000;
// The thread's CPU clock and the steady clock may tick at slightly different
// rates (the latter is slewed): CPU time may pass wall time by this much.
constexpr uint64_t kClockSlack = 1'000'000;

uint64_t thread_cpu_now_ns() {
    timespec now{};
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) != 0) FAIL("no CPU clock for this thread");
    return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(now.tv_nsec);
}

// Works on the CPU until this thread has used 50 ms of it (however long that
// takes on a loaded machine); returns something so the loop is not dropped.
uint64_t spin_fifty_cpu_ms() {
    const uint64_t start = thread_cpu_now_ns();
    uint64_t state = 88172645463325252u;
    while (thread_cpu_now_ns() - start < kFiftyMs)
        for (int i = 0; i < 10000; ++i) state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
}

}  // namespace

TEST_CASE("busy_scope: a body working on the CPU adds about as much CPU time as wall time") {
    NodeMetrics metrics;
    uint64_t sink = 0;
    {
        auto busy = metrics.busy_scope();
        sink = spin_fifty_cpu_ms();
    }
    CHECK(sink != 0);
    // The CPU interval is read inside the wall one: never more, and here at
    // least the 50 ms the loop used (a descheduled thread adds wall time only).
    CHECK(metrics.busy_cpu_ns.load() >= kFiftyMs);
    CHECK(metrics.busy_ns.load() + kClockSlack >= metrics.busy_cpu_ns.load());
}

TEST_CASE("busy_scope: a body that sleeps adds its wall time but little CPU time") {
    NodeMetrics metrics;
    {
        auto busy = metrics.busy_scope();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    CHECK(metrics.busy_ns.load() >= kFiftyMs);
    CHECK(metrics.busy_cpu_ns.load() < metrics.busy_ns.load() / 2);
}

TEST_CASE("busy scopes add up over scopes and leave the other counters alone") {
    NodeMetrics metrics;
    for (int i = 0; i < 2; ++i) {
        auto busy = metrics.busy_scope();
        spin_fifty_cpu_ms();
    }
    CHECK(metrics.busy_cpu_ns.load() >= 2 * kFiftyMs);
    CHECK(metrics.wait_output_ns.load() == 0);
    // Waiting to hand work on is wall time only: no CPU figure of its own.
    const uint64_t cpu_before = metrics.busy_cpu_ns.load();
    {
        auto blocked = metrics.wait_output_scope();
        spin_fifty_cpu_ms();
    }
    CHECK(metrics.wait_output_ns.load() >= kFiftyMs);
    CHECK(metrics.busy_cpu_ns.load() == cpu_before);
}

TEST_CASE("BusyScope on a node's own counters: one sink takes wall time only, two take wall and CPU time") {
    std::atomic<uint64_t> wall_only{0};
    std::atomic<uint64_t> wall{0};
    std::atomic<uint64_t> cpu{0};
    {
        NodeMetrics::BusyScope one(wall_only);
        NodeMetrics::BusyScope both(wall, cpu);
        spin_fifty_cpu_ms();
    }
    CHECK(wall_only.load() >= kFiftyMs);
    CHECK(wall.load() >= kFiftyMs);
    CHECK(cpu.load() >= kFiftyMs);
    CHECK(wall.load() + kClockSlack >= cpu.load());
}
