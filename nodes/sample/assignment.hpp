// Which indexer owns which trie collection, decided once from a sample of the
// input (Wei & JaJa §III.E): the collections are bound to their indexer for
// the whole build, so each indexer keeps an exclusive part of the dictionary.
#pragma once

#include <cstdint>
#include <vector>

#include "invidx/collection_assignment.hpp"

namespace invidx {


// Greedy longest-processing-time: collections in decreasing sampled tokens
// (ties by smaller index) each go to the indexer with the smallest load so
// far (ties by smaller indexer); collections absent from the sample go
// round-robin (c mod indexer_count), the paper's rule for unpopular ones.
// popular = the smallest set of most frequent collections whose tokens reach
// `popular_token_fraction` of the sample, at most `max_popular` of them
// (§III.E: about a hundred popular collections, which suit the CPU's caches).
// Deterministic. Throws invidx::Error when sampled_tokens does not have
// kCollections entries, indexer_count is 0 or the fraction is outside [0, 1].
CollectionAssignment assign_collections(const std::vector<uint64_t>& sampled_tokens,
                                        uint32_t indexer_count,
                                        double popular_token_fraction = 0.5,
                                        uint32_t max_popular = 256);

// CPU and GPU indexers together (Wei & JaJa §III.E): the popular collections
// go to the CPU indexers (LPT among them: they suit the CPU's caches), every
// other collection to the GPU indexers (LPT for the sampled ones, c mod the
// number of GPU indexers for the rest). on_gpu has one entry per indexer;
// when all are alike this is assign_collections above.
CollectionAssignment assign_collections(const std::vector<uint64_t>& sampled_tokens,
                                        const std::vector<bool>& on_gpu,
                                        double popular_token_fraction,
                                        uint32_t max_popular);

}  // namespace invidx
