// Which indexer owns which trie collection, decided once by the sampler for
// the whole build (nodes/sample/assignment.hpp computes it). Public because
// the run state, and so an embedding program's nodes, can read it.
#pragma once

#include <cstdint>
#include <vector>

namespace invidx {

struct CollectionAssignment {
    std::vector<uint32_t> owner;                       // kCollections entries: indexer index
    std::vector<bool> popular;                         // kCollections entries
    std::vector<uint64_t> sampled_tokens;              // per collection, as given
    std::vector<uint64_t> expected_tokens_per_indexer; // sampled tokens each indexer got
};

}  // namespace invidx
