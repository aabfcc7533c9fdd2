// Collection ownership over every rank's indexers: rank 0 binds each
// collection to one indexer, numbered rank by rank; each rank indexes the
// collections its own indexers own and sends every other one to its
// owner's rank; a rank's failed sample fails the decision, naming it.
#include <doctest/doctest.h>

#include <string>

#include "invidx/collections.hpp"
#include "pipelines/cluster/collection_ownership.hpp"

using namespace invidx;

namespace {

SampleMessage sample_of(std::vector<std::string> devices, uint32_t seed) {
    SampleMessage sample{.devices = std::move(devices), .tokens = std::vector<uint64_t>(kCollections, 0), .bytes = 10,
                         .documents = 1, .files = 1};
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
