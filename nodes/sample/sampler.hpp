// The sampler (Wei & JaJa §III.E): before indexing, parse the start of the
// input files and count tokens per trie collection, so that collections can
// be bound to indexers with nearly equal token counts for the whole build.
#pragma once

#include <cstdint>
#include <vector>

#include "invidx/config.hpp"
#include "invidx/messages.hpp"

namespace invidx {

struct CollectionSample {
    std::vector<uint64_t> tokens;   // kCollections entries: sum of tf per collection
    uint64_t bytes = 0;             // decompressed bytes looked at
    uint64_t documents = 0;         // complete documents analyzed
    uint32_t files = 0;             // files sampled
};

// Samples `config.bytes_per_file` of decompressed text from evenly spaced
// files, at most `config.max_bytes` in all, in parallel. Only complete
// records count; a record cut by the budget is ignored. Deterministic.
CollectionSample sample_collections(const std::vector<InputFile>& files, const SamplerConfig& config,
                                    const AnalysisSettings& analysis);

}  // namespace invidx
