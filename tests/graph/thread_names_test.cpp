#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include <unistd.h>

#include <oneapi/tbb/parallel_for.h>

#include "graph/thread_names.hpp"

namespace {

// Spins on the CPU for about `seconds` (CPU time, not wall time).
void burn_cpu(double seconds) {
    const auto start = std::chrono::steady_clock::now();
    std::atomic<uint64_t> sink{0};
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) sink += 1;
}

}  // namespace

TEST_CASE("thread names: a named thread's CPU time is counted under its name, from the snapshot on") {
    // CPU this thread uses before the snapshot is not counted.
    burn_cpu(0.2);
    const auto before = invidx::thread_cpu_by_id();
    const std::string this_thread_name = before.at(static_cast<pid_t>(gettid())).name;
    std::mutex mutex;
    std::condition_variable changed;
    bool burnt = false, done = false;
    // A name longer than Linux keeps: its first 15 bytes.
    std::thread worker([&] {
        invidx::name_this_thread("invidx-test-burner-long");
        burn_cpu(0.15);
        std::unique_lock lock(mutex);
        burnt = true;
        changed.notify_all();
        changed.wait(lock, [&] { return done; });
    });
    {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return burnt; });
    }
    const auto by_name = invidx::thread_cpu_seconds_since(before);
    {
        std::lock_guard lock(mutex);
        done = true;
    }
    changed.notify_all();
    worker.join();
    REQUIRE(by_name.count("invidx-test-bu") == 0);
    REQUIRE(by_name.count("invidx-test-bur") == 1);
    // It burnt ~0.15 s of CPU (clock ticks of 10 ms; a loaded machine may
    // have given it less of the wall time, never more CPU than that).
    CHECK(by_name.at("invidx-test-bur") > 0.02);
    CHECK(by_name.at("invidx-test-bur") < 0.5);
    // This thread mostly waited since the snapshot.
    REQUIRE(by_name.count(this_thread_name) == 1);
    CHECK(by_name.at(this_thread_name) < 0.1);
    double total = 0;
    for (const auto& [name, seconds] : by_name) {
        CHECK(seconds >= 0);
        total += seconds;
    }
    CHECK(total >= by_name.at("invidx-test-bur"));
}

TEST_CASE("thread names: oneTBB's workers are named invidx-tbb while the observer exists") {
    const invidx::TbbWorkerNames names;
    const auto before = invidx::thread_cpu_by_id();
    // Enough parallel work that a worker joins (on one core there is none).
    std::atomic<uint64_t> sum{0};
    oneapi::tbb::parallel_for(0, 64, [&](int) { burn_cpu(0.01); sum += 1; });
    CHECK(sum == 64);
    if (std::thread::hardware_concurrency() < 2) return;
    bool named_worker = false;
    for (const auto& [id, thread] : invidx::thread_cpu_by_id()) named_worker |= thread.name == "invidx-tbb";
    CHECK(named_worker);
}
