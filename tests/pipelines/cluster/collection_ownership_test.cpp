// Collection ownership over every rank's indexers: rank 0 binds each
// collection to one indexer, numbered rank by rank; each rank indexes the
// collections its own indexers own and sends every other one to its
// owner's rank; a rank's failed sample fails the decision, naming it.
#include <doctest/doctest.h>

#include <string>

#include "invidx/collections.hpp"
#include "nodes/sample/sample_step.hpp"
#include "pipelines/cluster/collection_ownership.hpp"

using namespace invidx;

namespace {

SampleMessage sample_of(std::vector<std::string> devices, uint32_t seed, std::vector<bool> fed_on_device = {}) {
    SampleMessage sample{.devices = std::move(devices),
                         .fed_on_device = std::move(fed_on_device),
                         .tokens = std::vector<uint64_t>(kCollections, 0),
                         .bytes = 10,
                         .documents = 1,
                         .files = 1};
    for (uint32_t c = seed; c < kCollections; c += 7) sample.tokens[c] = c % 13 + seed;
    return sample;
}

}  // namespace

TEST_CASE("ownership numbers every rank's indexers rank by rank, and each rank sees its own") {
    PipelineConfig config;
    const ControlMessage decided =
        decide_ownership(config, {sample_of({"cpu", "cpu"}, 1), sample_of({"cpu"}, 2), sample_of({"cpu", "cpu"}, 3)});
    const auto& global = std::get<OwnershipMessage>(decided);
    CHECK(global.first_indexer == std::vector<uint32_t>{0, 2, 3, 5});
    REQUIRE(global.owner.size() == kCollections);
    CHECK(global.expected_tokens.size() == 5);
    CHECK(global.sampled.size() == 3);
    for (int rank = 0; rank < 3; ++rank) {
        CAPTURE(rank);
        const size_t indexers = rank == 1 ? 1 : 2;
        const RankOwnership mine = rank_ownership(global, rank, indexers, "rank " + std::to_string(rank) + " of 3");
        for (uint32_t c = 0; c < kCollections; ++c) {
            const uint32_t g = global.owner[c];
            const uint32_t owner_rank = g < 2 ? 0 : g < 3 ? 1 : 2;
            CHECK((*mine.owner_rank)[c] == owner_rank);
            // Another rank's collection is owned by none of this rank's indexers.
            CHECK(mine.local.owner[c] == (owner_rank == static_cast<uint32_t>(rank)
                                              ? g - global.first_indexer[static_cast<size_t>(rank)]
                                              : indexers));
        }
    }
    CHECK_THROWS_WITH_AS(rank_ownership(global, 1, 2, "rank 1 of 3"),
                         doctest::Contains("rank 1 of 3: the ownership was made for another number of indexers"), Error);
}

TEST_CASE("a rank whose sample failed fails the ownership, every failure named") {
    PipelineConfig config;
    const ControlMessage decided =
        decide_ownership(config, {sample_of({"cpu"}, 1), FailureMessage{.error = "rank 1 of 3: sampling failed: a"},
                                  FailureMessage{.error = "rank 2 of 3: sampling failed: b"}});
    const auto* failure = std::get_if<FailureMessage>(&decided);
    REQUIRE(failure != nullptr);
    CHECK(failure->error == "rank 1 of 3: sampling failed: a; rank 2 of 3: sampling failed: b");
}

TEST_CASE("ownership: a GPU indexer fed on its device counts as on one machine for its own rank's share of its tokens") {
    PipelineConfig config;
    const std::vector<std::string> rank_devices = {"cpu", "cpu", "cpu", "cpu", "cpu", "cpu", "cpu", "cpu", "gpu:0"};
    const std::vector<bool> fed = {false, false, false, false, false, false, false, false, true};
    const auto fraction = [&](std::vector<ControlMessage> samples) {
        return std::get<OwnershipMessage>(decide_ownership(config, samples)).popular_token_fraction;
    };
    // One rank: the single build's plan (configs/default.json, 16 cores, one GPU): 8 / (8 + 32).
    CHECK(fraction({sample_of(rank_devices, 1, fed)}) == doctest::Approx(0.2));
    CHECK(fraction({sample_of(rank_devices, 1, fed)}) ==
          doctest::Approx(automatic_popular_fraction(std::vector<bool>(fed.begin(), fed.end()), fed)));
    // Not fed: a GPU indexer counts 8 CPU ones.
    CHECK(fraction({sample_of(rank_devices, 1)}) == doctest::Approx(0.5));
    // Two ranks: half of each GPU indexer's tokens come from the other rank
    // through the host; its capacity the harmonic mean, 1 / (0.5/32 + 0.5/8) = 12.8.
    CHECK(fraction({sample_of(rank_devices, 1, fed), sample_of(rank_devices, 2, fed)}) ==
          doctest::Approx(16.0 / (16.0 + 2 * 12.8)));
    // A rank without GPU parsers beside one with.
    CHECK(fraction({sample_of(rank_devices, 1, fed), sample_of(rank_devices, 2)}) ==
          doctest::Approx(16.0 / (16.0 + 12.8 + 8)));
}
