#include <doctest/doctest.h>

#include <chrono>

#include "graph/occupancy_gauge.hpp"

using invidx::OccupancyGauge;
using std::chrono::milliseconds;

TEST_CASE("OccupancyGauge weighs each level by how long it lasted") {
    OccupancyGauge gauge;
    const auto t0 = OccupancyGauge::Clock::time_point{} + std::chrono::seconds(100);
    CHECK(gauge.mean() == 0.0);
    gauge.set(0, t0);
    gauge.set(4, t0 + milliseconds(100));   // 0 for 0.1 s
    gauge.set(1, t0 + milliseconds(400));   // 4 for 0.3 s
    gauge.set(0, t0 + milliseconds(1000));  // 1 for 0.6 s
    CHECK(gauge.peak() == 4);
    CHECK(gauge.level_seconds() == doctest::Approx(4 * 0.3 + 1 * 0.6));
    CHECK(gauge.mean() == doctest::Approx((4 * 0.3 + 1 * 0.6) / 1.0));
}

TEST_CASE("OccupancyGauge's first instant starts its span; a level set once has no mean") {
    OccupancyGauge gauge;
    const auto t0 = OccupancyGauge::Clock::time_point{} + std::chrono::seconds(5);
    gauge.set(7, t0);
    CHECK(gauge.peak() == 7);
    CHECK(gauge.mean() == 0.0);
    gauge.set(7, t0 + milliseconds(500));
    CHECK(gauge.mean() == doctest::Approx(7.0));
    CHECK(gauge.level_seconds() == doctest::Approx(3.5));
}
