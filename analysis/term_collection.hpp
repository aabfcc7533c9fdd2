// The CONTENT.md §8 collection of a term over raw bytes, one implementation for
// host and device: collection_of() (collection.hpp) and GPU parsing both
// compute it here. Plain C++17, every function INVIDX_HOST_DEVICE constexpr.
#pragma once

#include <cstddef>
#include <cstdint>

#include "invidx/collections.hpp"
#include "invidx/host_device.hpp"

namespace invidx {

// Letters that name a prefix collection (and that its terms are stored without).
inline constexpr uint32_t kCollectionPrefixBytes = 3;

// 32-bit FNV-1a of `length` bytes (offset basis 2166136261, prime 16777619).
// The hashed collection is this value mod 1,024. Part of the on-disk format:
// changing it moves terms between collections of existing indexes.
template <class Byte>
INVIDX_HOST_DEVICE constexpr uint32_t fnv1a_32_bytes(const Byte* bytes, size_t length) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < length; ++i) h = (h ^ static_cast<unsigned char>(bytes[i])) * 16777619u;
    return h;
}

INVIDX_HOST_DEVICE constexpr bool is_prefix_letter(unsigned char c) { return c >= 'a' && c <= 'z'; }

// 1024 + 676*(c0-'a') + 26*(c1-'a') + (c2-'a') for a term of 4+ bytes that
// starts with three letters a-z, fnv1a_32 % 1024 otherwise.
template <class Byte>
INVIDX_HOST_DEVICE constexpr uint32_t term_collection(const Byte* term, size_t length) {
    const auto c0 = static_cast<unsigned char>(length > 0 ? term[0] : 0);
    const auto c1 = static_cast<unsigned char>(length > 1 ? term[1] : 0);
    const auto c2 = static_cast<unsigned char>(length > 2 ? term[2] : 0);
    if (length > kCollectionPrefixBytes && is_prefix_letter(c0) && is_prefix_letter(c1) && is_prefix_letter(c2)) {
        return kHashedCollections + 676u * static_cast<uint32_t>(c0 - 'a') + 26u * static_cast<uint32_t>(c1 - 'a') +
               static_cast<uint32_t>(c2 - 'a');
    }
    return fnv1a_32_bytes(term, length) % kHashedCollections;
}

}  // namespace invidx
