#include <doctest/doctest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "graph/latency_stat.hpp"

using invidx::LatencyStat;
using std::chrono::milliseconds;

TEST_CASE("LatencyStat counts each wait, its mean and the longest; an unset start is not counted") {
    LatencyStat stat;
    const auto t0 = LatencyStat::Clock::time_point{} + std::chrono::seconds(10);
    CHECK(stat.to_json() == nlohmann::json{{"count", 0}, {"mean", 0.0}, {"max", 0.0}});
    stat.add(t0, t0 + milliseconds(100));
    stat.add(t0, t0 + milliseconds(300));
    stat.add(LatencyStat::Clock::time_point{}, t0 + milliseconds(900));  // never stamped
    CHECK(stat.count() == 2);
    CHECK(stat.mean_seconds() == doctest::Approx(0.2));
    CHECK(stat.max_seconds() == doctest::Approx(0.3));
}

TEST_CASE("LatencyStat adds from several threads without losing a wait") {
    LatencyStat stat;
    const auto t0 = LatencyStat::Clock::time_point{} + std::chrono::seconds(10);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 10000; ++i) stat.add(t0, t0 + milliseconds(1 + (i + t) % 7));
        });
    for (auto& thread : threads) thread.join();
    CHECK(stat.count() == 40000);
    CHECK(stat.max_seconds() == doctest::Approx(0.007));
    CHECK(stat.mean_seconds() > 0.001);
    CHECK(stat.mean_seconds() < 0.007);
}
