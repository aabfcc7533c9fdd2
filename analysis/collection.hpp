// The dictionary partition of SPEC §5 (Wei & JaJa's trie collections): a term
// of 4+ bytes starting with three letters a-z belongs to the prefix
// collection of those letters and is stored without them; every other term
// falls in one of 1,024 hashed collections.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "invidx/messages.hpp"

namespace invidx {

// Letters that name a prefix collection (and that its terms are stored without).
inline constexpr uint32_t kCollectionPrefixBytes = 3;

// 32-bit FNV-1a of the whole term (offset basis 2166136261, prime 16777619).
// The hashed collection is this value mod 1,024. Part of the on-disk format:
// changing it moves terms between collections of existing indexes.
constexpr uint32_t fnv1a_32(std::string_view bytes) {
    uint32_t h = 2166136261u;
    for (char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
    return h;
}

constexpr bool is_prefix_letter(char c) { return c >= 'a' && c <= 'z'; }

// SPEC §5 collection of `term`: 1024 + 676*(c0-'a') + 26*(c1-'a') + (c2-'a')
// for a prefix term, fnv1a_32(term) % 1024 otherwise.
constexpr uint32_t collection_of(std::string_view term) {
    if (term.size() > kCollectionPrefixBytes && is_prefix_letter(term[0]) && is_prefix_letter(term[1]) &&
        is_prefix_letter(term[2])) {
        return kHashedCollections + 676u * static_cast<uint32_t>(term[0] - 'a') +
               26u * static_cast<uint32_t>(term[1] - 'a') + static_cast<uint32_t>(term[2] - 'a');
    }
    return fnv1a_32(term) % kHashedCollections;
}

// 3 for a prefix collection, 0 for a hashed one. Throws for collection >= kCollections.
uint32_t collection_prefix_length(uint32_t collection);

// The three letters every term of a prefix collection starts with ("" for a
// hashed collection). Throws for collection >= kCollections.
std::string collection_prefix(uint32_t collection);

}  // namespace invidx
