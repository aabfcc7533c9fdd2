// The dictionary as the kernels see it: device pointers only. Term id t owns
// key bytes arena[term_offsets[t] .. + term_lengths[t]) of collection
// term_collections[t]; counters[0] = terms, counters[1] = arena bytes in use.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace invidx::cuda {

struct DictionaryView {
    uint64_t* term_offsets = nullptr;
    uint8_t* term_lengths = nullptr;
    uint16_t* term_collections = nullptr;
    char* arena = nullptr;
    unsigned long long* counters = nullptr;
};

// One submitted chunk of occurrences, already on the device.
struct ChunkView {
    const char* key_bytes = nullptr;
    const uint32_t* key_offsets = nullptr;
    const uint8_t* key_lengths = nullptr;
    const uint16_t* collections = nullptr;
    uint32_t count = 0;
};

__device__ inline bool same_key(const char* a, uint32_t a_length, uint32_t a_collection, const char* b,
                                uint32_t b_length, uint32_t b_collection) {
    if (a_length != b_length || a_collection != b_collection) return false;
    for (uint32_t i = 0; i < a_length; ++i) {
        if (a[i] != b[i]) return false;
    }
    return true;
}

}  // namespace invidx::cuda
