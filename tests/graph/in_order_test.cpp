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

TEST_CASE("FileOrder releases file after file, each file's blocks in order, then the sentinel") {
    // blocks per file; file 2 has only its file_end marker.
    const std::vector<uint64_t> blocks = {3, 1, 1, 5, 2};
    struct Item {
        invidx::FilePosition position;
        int value;
    };
    std::vector<Item> expected;
    for (uint64_t f = 0; f < blocks.size(); ++f)
        for (uint64_t b = 0; b < blocks[f]; ++b)
            expected.push_back({{f, b, b + 1 == blocks[f]}, static_cast<int>(expected.size())});
    expected.push_back({{blocks.size(), 0, true}, static_cast<int>(expected.size())});  // the sentinel
    std::mt19937 random(5);
    for (int trial = 0; trial < 50; ++trial) {
        std::vector<Item> arrival = expected;
        // Mostly shuffled, sometimes in order or reversed.
        if (trial == 1) std::reverse(arrival.begin(), arrival.end());
        if (trial > 1) std::shuffle(arrival.begin(), arrival.end(), random);
        invidx::FileOrder<int> order;
        std::vector<int> seen;
        for (const Item& item : arrival) order.push(item.position, item.value, [&](int value) { seen.push_back(value); });
        REQUIRE(seen.size() == expected.size());
        for (size_t i = 0; i < expected.size(); ++i) CHECK(seen[i] == expected[i].value);
        CHECK(order.held() == 0);
        CHECK(order.next_file() == blocks.size() + 1);
        CHECK(order.next_block() == 0);
    }
}

TEST_CASE("FileOrder holds a later file until the earlier one ends") {
    invidx::FileOrder<int> order;
    std::vector<int> seen;
    const auto record = [&](int value) { seen.push_back(value); };
    order.push({1, 0, true}, 10, record);   // file 1, all of it
    order.push({0, 0, false}, 0, record);   // file 0 starts; file 1 must wait
    CHECK(seen == std::vector<int>{0});
    CHECK(order.held() == 1);
    order.push({0, 1, true}, 1, record);    // file 0 ends: file 1 follows at once
    CHECK(seen == std::vector<int>{0, 1, 10});
    CHECK(order.held() == 0);
    CHECK(order.next_file() == 2);
}
