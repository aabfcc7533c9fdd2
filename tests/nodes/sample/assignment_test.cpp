#include "nodes/sample/assignment.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "invidx/error.hpp"
#include "invidx/messages.hpp"
#include "nodes/sample/sample_step.hpp"

namespace {

using namespace invidx;

// Tokens each indexer owns, summed from the owner table (not from the result's own totals).
std::vector<uint64_t> loads_of(const CollectionAssignment& assignment, const std::vector<uint64_t>& tokens,
                               uint32_t indexer_count) {
    std::vector<uint64_t> loads(indexer_count, 0);
    for (uint32_t c = 0; c < kCollections; ++c) loads.at(assignment.owner[c]) += tokens[c];
    return loads;
}

// A Zipf-like sample: collection rank r gets about 1e6 / r tokens; 3,000 collections seen.
std::vector<uint64_t> skewed_sample(uint32_t seed) {
    std::mt19937 random(seed);
    std::vector<uint32_t> collections(kCollections);
    std::iota(collections.begin(), collections.end(), 0);
    std::shuffle(collections.begin(), collections.end(), random);
    std::vector<uint64_t> tokens(kCollections, 0);
    for (uint32_t rank = 1; rank <= 3000; ++rank) tokens[collections[rank - 1]] = 1000000 / rank;
    return tokens;
}

}  // namespace

TEST_CASE("assignment: a small example worked by hand") {
    std::vector<uint64_t> tokens(kCollections, 0);
    tokens[5] = 10;
    tokens[7] = 7;
    tokens[9] = 5;
    tokens[11] = 4;
    // LPT with 2 indexers: 10 -> #0; 7 -> #1; 5 -> #1 (7 < 10); 4 -> #0 (10 < 12).
    const auto assignment = assign_collections(tokens, 2, 0.5, 256);
    CHECK(assignment.owner[5] == 0);
    CHECK(assignment.owner[7] == 1);
    CHECK(assignment.owner[9] == 1);
    CHECK(assignment.owner[11] == 0);
    CHECK(assignment.expected_tokens_per_indexer == std::vector<uint64_t>{14, 12});
    // Unseen collections go round-robin.
    CHECK(assignment.owner[0] == 0);
    CHECK(assignment.owner[1] == 1);
    CHECK(assignment.owner[kCollections - 1] == (kCollections - 1) % 2);
    // Popular: 10 covers less than half of 26; 10 + 7 = 17 covers it.
    for (uint32_t c = 0; c < kCollections; ++c) CHECK(assignment.popular[c] == (c == 5 || c == 7));
    CHECK(assignment.sampled_tokens == tokens);
}

TEST_CASE("assignment: skewed samples give balanced loads") {
    for (const uint32_t indexers : {1u, 2u, 3u, 6u, 8u}) {
        const auto tokens = skewed_sample(indexers);
        const auto assignment = assign_collections(tokens, indexers);
        const auto loads = loads_of(assignment, tokens, indexers);
        CHECK(loads == assignment.expected_tokens_per_indexer);
        const uint64_t total = std::accumulate(tokens.begin(), tokens.end(), uint64_t{0});
        const uint64_t largest = *std::max_element(tokens.begin(), tokens.end());
        const uint64_t heaviest = *std::max_element(loads.begin(), loads.end());
        const uint64_t lightest = *std::min_element(loads.begin(), loads.end());
        // No schedule beats max(total / m, largest item); LPT stays within
        // 4/3 of it, and here, with many small items, much closer.
        const uint64_t lower_bound = std::max<uint64_t>((total + indexers - 1) / indexers, largest);
        CHECK(heaviest * 3 <= lower_bound * 4);
        if (largest <= total / indexers) CHECK(heaviest - lightest <= largest);
        for (uint32_t c = 0; c < kCollections; ++c) {
            REQUIRE(assignment.owner[c] < indexers);
            if (tokens[c] == 0) REQUIRE(assignment.owner[c] == c % indexers);
        }
    }
}

TEST_CASE("assignment: equal weights spread evenly, ties by index") {
    std::vector<uint64_t> tokens(kCollections, 0);
    for (uint32_t c = 100; c < 112; ++c) tokens[c] = 50;
    const auto assignment = assign_collections(tokens, 4);
    CHECK(assignment.expected_tokens_per_indexer == std::vector<uint64_t>(4, 150));
    // Equal loads pick the smaller indexer, equal tokens the smaller collection.
    CHECK(assignment.owner[100] == 0);
    CHECK(assignment.owner[101] == 1);
    CHECK(assignment.owner[102] == 2);
    CHECK(assignment.owner[103] == 3);
    CHECK(assignment.owner[104] == 0);
}

TEST_CASE("assignment: deterministic") {
    const auto tokens = skewed_sample(99);
    const auto first = assign_collections(tokens, 5, 0.6, 100);
    for (int i = 0; i < 3; ++i) {
        const auto again = assign_collections(tokens, 5, 0.6, 100);
        CHECK(again.owner == first.owner);
        CHECK(again.popular == first.popular);
        CHECK(again.expected_tokens_per_indexer == first.expected_tokens_per_indexer);
    }
}

TEST_CASE("assignment: popular set is the smallest top set covering the fraction") {
    const auto tokens = skewed_sample(3);
    const uint64_t total = std::accumulate(tokens.begin(), tokens.end(), uint64_t{0});
    for (const double fraction : {0.1, 0.5, 0.8}) {
        const auto assignment = assign_collections(tokens, 4, fraction, 100000);
        uint64_t covered = 0, smallest_popular = UINT64_MAX, largest_other = 0;
        uint32_t count = 0;
        for (uint32_t c = 0; c < kCollections; ++c) {
            if (assignment.popular[c]) {
                covered += tokens[c];
                smallest_popular = std::min(smallest_popular, tokens[c]);
                ++count;
            } else {
                largest_other = std::max(largest_other, tokens[c]);
            }
        }
        INFO("fraction " << fraction);
        CHECK(count > 0);
        CHECK(smallest_popular >= largest_other);                    // the most frequent ones
        CHECK(static_cast<double>(covered) >= fraction * total);     // cover the fraction
        CHECK(static_cast<double>(covered - smallest_popular) < fraction * total);  // and no more
    }
    // The cap wins over the fraction.
    const auto capped = assign_collections(tokens, 4, 0.99, 7);
    CHECK(std::count(capped.popular.begin(), capped.popular.end(), true) == 7);
    // Nothing sampled, nothing popular.
    const auto empty = assign_collections(std::vector<uint64_t>(kCollections, 0), 3);
    CHECK(std::count(empty.popular.begin(), empty.popular.end(), true) == 0);
    CHECK(empty.expected_tokens_per_indexer == std::vector<uint64_t>(3, 0));
}

TEST_CASE("assignment: bad arguments are errors") {
    CHECK_THROWS_AS(assign_collections(std::vector<uint64_t>(10, 1), 2), Error);
    CHECK_THROWS_AS(assign_collections(std::vector<uint64_t>(kCollections, 1), 0), Error);
    CHECK_THROWS_AS(assign_collections(std::vector<uint64_t>(kCollections, 1), 2, 1.5), Error);
}

TEST_CASE("automatic popular fraction: a GPU indexer fed on its device counts for more") {
    const std::vector<bool> eight_cpu_one_gpu = {false, false, false, false, false, false, false, false, true};
    // Fed through the host: the GPU counts 8 CPU indexers; half goes to the CPUs.
    CHECK(automatic_popular_fraction(eight_cpu_one_gpu) == doctest::Approx(0.5));
    // GPU parsers leave its terms on the device: it counts 32, the CPUs get a fifth.
    std::vector<bool> fed(9, false);
    fed[8] = true;
    CHECK(automatic_popular_fraction(eight_cpu_one_gpu, fed) == doctest::Approx(8.0 / 40));
    // CPU only, GPU only: half, whatever feeds them.
    CHECK(automatic_popular_fraction({false, false}) == doctest::Approx(0.5));
    CHECK(automatic_popular_fraction({true, true}, {true, true}) == doctest::Approx(0.5));
}
