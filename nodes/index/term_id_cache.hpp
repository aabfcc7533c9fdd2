// The CPU indexer's recent terms: (collection, stored key) -> term id, so
// that most postings skip the B-tree descent. Postings are Zipfian like
// tokens, so a few thousand terms take most of them; a hit costs one hash
// of the key and one cache line. The B-tree stays the dictionary: a miss
// looks there and fills the entry, and an id never changes once given, so
// an entry is never stale. Keys longer than kKeyBytes are not cached.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "analysis/term_hash.hpp"
#include "invidx/collections.hpp"

namespace invidx {

class TermIdCache {
public:
    static constexpr size_t kKeyBytes = 49;
    static constexpr uint32_t kMiss = UINT32_MAX;

    // `slots` is rounded up to a power of two. The default, 2 MiB, holds
    // the terms of most postings, postings being Zipfian, and stays small
    // beside the B-trees (docs/PERFORMANCE.md, "Build on 16 cores, CPU only").
    explicit TermIdCache(size_t slots = size_t{1} << 15)
        : entries_(std::bit_ceil(slots < 1 ? size_t{1} : slots)), mask_(entries_.size() - 1) {}

    // The slot of (collection, key) in this cache.
    static uint64_t hash(uint32_t collection, std::string_view key) {
        return hash_term(key) ^ (uint64_t{collection} * 0xC2B2AE3D27D4EB4Full);
    }

    // The id cached for (collection, key), whose hash() is `h`, or kMiss.
    uint32_t find(uint32_t collection, std::string_view key, uint64_t h) const {
        const Entry& entry = entries_[h & mask_];
        if (entry.tag == (h | 1) && entry.collection == collection && entry.key_length == key.size() &&
            same_bytes(entry.key, key.data(), key.size())) {
            return entry.id;
        }
        return kMiss;
    }

    // Remembers `id` for (collection, key), replacing whatever had its slot.
    void remember(uint32_t collection, std::string_view key, uint64_t h, uint32_t id) {
        if (key.size() > kKeyBytes) return;
        Entry& entry = entries_[h & mask_];
        entry.tag = h | 1;
        entry.id = id;
        entry.collection = static_cast<uint16_t>(collection);
        entry.key_length = static_cast<uint8_t>(key.size());
        std::memcpy(entry.key, key.data(), key.size());
    }

    size_t memory_bytes() const { return entries_.capacity() * sizeof(Entry); }

private:
    struct alignas(64) Entry {
        uint64_t tag = 0;  // hash() | 1; 0: empty
        uint32_t id = 0;
        uint16_t collection = 0;
        uint8_t key_length = 0;
        char key[kKeyBytes];
    };
    static_assert(sizeof(Entry) == 64, "one cache line per entry");
    static_assert(kCollections <= 65536, "a collection fits the entry's 16 bits");

    std::vector<Entry> entries_;
    uint64_t mask_;
};

}  // namespace invidx
