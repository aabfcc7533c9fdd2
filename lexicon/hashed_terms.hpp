// A static hash table over the dictionary's terms: the fast alternative to
// the XBW trie (lexicon/xbw_trie.hpp) when bytes matter less than lookups.
// One hash of the term picks a slot and a 32-bit fingerprint; linear probing
// compares fingerprints inside the slot array (consecutive u64s, usually one
// cache line) and only a matching fingerprint reads the term's bytes to
// verify, so a lookup costs one hash, about one line of slots and one string
// compare, and a missing term almost never reads any string.
//
// Slots are u64: fingerprint in the high 32 bits, term index + 1 in the low
// 32 (0 = empty). The slot count is not a power of two: the load stays at the
// builder's target whatever the term count, and the home slot is
// (low 32 bits of the hash · slot count) >> 32 (Lemire's fast range).
#pragma once

#include <cstdint>
#include <cstring>

#include "invidx/host_device.hpp"
#include "lexicon/xbw_trie.hpp"

namespace invidx::lexicon {

// 64-bit hash of a byte string: eight bytes a step, each multiplied in and
// folded, then the murmur3 finalizer so that both halves are well mixed (the
// low half places, the high half fingerprints).
INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE uint64_t term_hash(const unsigned char* bytes, uint32_t length) {
    uint64_t hash = 0x9E3779B97F4A7C15ull ^ (uint64_t{length} * 0xC2B2AE3D27D4EB4Full);
    uint32_t i = 0;
    for (; i + 8 <= length; i += 8) {
        uint64_t word;
        memcpy(&word, bytes + i, 8);
        hash = (hash ^ (word * 0x87C37B91114253D5ull)) * 0x4CF5AD432745937Full;
        hash ^= hash >> 31;
    }
    if (i < length) {
        uint64_t word = 0;
        for (uint32_t k = 0; i + k < length; ++k) word |= uint64_t{bytes[i + k]} << (8 * k);
        hash = (hash ^ (word * 0x87C37B91114253D5ull)) * 0x4CF5AD432745937Full;
        hash ^= hash >> 31;
    }
    hash ^= hash >> 33;
    hash *= 0xFF51AFD7ED558CCDull;
    hash ^= hash >> 33;
    hash *= 0xC4CEB9FE1A85EC53ull;
    hash ^= hash >> 33;
    return hash;
}

// memcmp has no device version.
INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE bool same_bytes(const unsigned char* a, const unsigned char* b, uint32_t length) {
    for (uint32_t i = 0; i < length; ++i)
        if (a[i] != b[i]) return false;
    return true;
}

struct HashedTermsView {
    const uint64_t* slots = nullptr;
    const uint32_t* term_offsets = nullptr;  // term_count + 1 entries into term_bytes
    const unsigned char* term_bytes = nullptr;
    uint32_t slot_count = 0;
    uint32_t term_count = 0;

    // The term's index in byte-wise order, or kTermNotFound.
    INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE uint64_t find(const unsigned char* bytes, uint32_t length) const {
        if (slot_count == 0) return kTermNotFound;
        const uint64_t hash = term_hash(bytes, length);
        const uint32_t fingerprint = static_cast<uint32_t>(hash >> 32);
        uint32_t slot = static_cast<uint32_t>(((hash & 0xFFFFFFFFu) * slot_count) >> 32);
        for (;;) {
            const uint64_t entry = slots[slot];
            const uint32_t stored = static_cast<uint32_t>(entry & 0xFFFFFFFFu);
            if (stored == 0) return kTermNotFound;
            if (static_cast<uint32_t>(entry >> 32) == fingerprint) {
                const uint32_t index = stored - 1;
                const uint32_t begin = term_offsets[index];
                if (term_offsets[index + 1] - begin == length && same_bytes(term_bytes + begin, bytes, length)) return index;
            }
            if (++slot == slot_count) slot = 0;
        }
    }
};

struct HashedTermsSections {
    uint64_t slots_offset = 0;
    uint64_t term_offsets_offset = 0;
    uint64_t term_bytes_offset = 0;
    uint32_t slot_count = 0;
    uint32_t term_count = 0;

    INVIDX_HOST_DEVICE HashedTermsView view(const uint64_t* base) const {
        HashedTermsView view;
        view.slots = base + slots_offset;
        view.term_offsets = reinterpret_cast<const uint32_t*>(base + term_offsets_offset);
        view.term_bytes = reinterpret_cast<const unsigned char*>(base + term_bytes_offset);
        view.slot_count = slot_count;
        view.term_count = term_count;
        return view;
    }
};

}  // namespace invidx::lexicon
