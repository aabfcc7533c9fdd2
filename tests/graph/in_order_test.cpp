#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "graph/in_order.hpp"

TEST_CASE("InOrder releases items in sequence order whatever the arrival order") {
    std::mt19937 random(3);
    for (int trial = 0; trial < 50; ++trial) {
        std::vector<uint64_t> arrival(200);
        std::iota(arrival.begin(), arrival.end(), 0);
        std::shuffle(arrival.begin(), arrival.end(), random);
        invidx::InOrder<int> in_order;
        std::vector<int> seen;
        for (uint64_t sequence : arrival)
            in_order.push(sequence, static_cast<int>(sequence) * 10, [&](int value) { seen.push_back(value); });
        REQUIRE(seen.size() == 200);
        for (int i = 0; i < 200; ++i) CHECK(seen[i] == i * 10);
        CHECK(in_order.held() == 0);
        CHECK(in_order.next_sequence() == 200);
    }
}

TEST_CASE("InOrder holds items until the gap is filled") {
    invidx::InOrder<int> in_order;
    std::vector<int> seen;
    const auto record = [&](int value) { seen.push_back(value); };
    in_order.push(2, 2, record);
    in_order.push(1, 1, record);
    CHECK(seen.empty());
    CHECK(in_order.held() == 2);
    in_order.push(0, 0, record);
    CHECK(seen == std::vector<int>{0, 1, 2});
}
