// The stop word lookup of CONTENT.md §5 over flat arrays, so that host code (a
// StopwordSet's own arrays) and device code (copies of them in GPU memory)
// run the same lookup. No C++ runtime: every function is INVIDX_HOST_DEVICE.
#pragma once

#include <cstdint>

#include "invidx/host_device.hpp"

namespace invidx {

// 64-bit FNV-1a: stop words are short, and it needs no tables.
INVIDX_HOST_DEVICE inline uint64_t stopword_hash(const unsigned char* word, uint32_t length) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t i = 0; i < length; ++i) h = (h ^ word[i]) * 0x100000001b3ull;
    return h;
}

// A set of distinct words in open addressing over a power-of-two table with
// linear probing, at most half full. The arrays belong to someone else
// (a StopwordSet, or device memory filled from one).
struct StopwordTable {
    const unsigned char* bytes = nullptr;   // the words back to back
    const uint32_t* word_offsets = nullptr; // word i is bytes [word_offsets[i], word_offsets[i + 1])
    const uint32_t* slots = nullptr;        // mask + 1 entries: word index + 1, 0 = empty
    uint64_t mask = 0;
    uint32_t words = 0;
    uint32_t longest = 0;                   // longer tokens are rejected at once

    INVIDX_HOST_DEVICE bool contains(const unsigned char* word, uint32_t length) const {
        if (words == 0 || length > longest) return false;
        for (uint64_t slot = stopword_hash(word, length) & mask; slots[slot] != 0; slot = (slot + 1) & mask) {
            const uint32_t index = slots[slot] - 1;
            const uint32_t begin = word_offsets[index];
            if (word_offsets[index + 1] - begin != length) continue;
            uint32_t i = 0;
            while (i < length && bytes[begin + i] == word[i]) ++i;
            if (i == length) return true;
        }
        return false;
    }
};

}  // namespace invidx
