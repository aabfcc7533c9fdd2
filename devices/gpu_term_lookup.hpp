// Batched term lookups on a GPU with the compact dictionaries of lexicon/
// (the XBW trie or the static hash table), the same lookup code the host
// runs, over a copy of the structure's flat buffer: Wakatsuki et al.'s
// "converting" step, words to term ids before anything else touches them.
// C++17 and free of CUDA headers: devices/no_cuda.cpp throws for builds
// without CUDA.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lexicon/hashed_terms.hpp"
#include "lexicon/xbw_trie.hpp"

namespace invidx {

// Strings back to back: string i is bytes [offsets[i], offsets[i + 1]).
struct GpuLookupInput {
    std::string bytes;
    std::vector<uint32_t> offsets;  // one more than there are strings; starts at 0
};

struct GpuLookupResult {
    std::vector<uint64_t> term_ids;  // per string: its term index, or lexicon::kTermNotFound
    double kernel_ms = 0.0;          // the lookup kernel alone (CUDA events)
    double total_ms = 0.0;           // with the structure's and strings' copies and the results' copy back
};

// One thread per string on GPU `device`. Throws invidx::Error naming the
// device when it cannot be used, or when the offsets are malformed.
GpuLookupResult gpu_find_terms(int device, const lexicon::XbwTrieSections& sections, const std::vector<uint64_t>& buffer,
                               const GpuLookupInput& input);
GpuLookupResult gpu_find_terms(int device, const lexicon::HashedTermsSections& sections, const std::vector<uint64_t>& buffer,
                               const GpuLookupInput& input);

}  // namespace invidx
