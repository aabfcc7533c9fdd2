// The number of trie collections (CONTENT.md §8): 1,024 hashed collections for terms
// that do not start with three ASCII letters, and one per three-letter prefix.
// Plain C++17 so that the CUDA code (compiled as C++17) uses the same constants.
#pragma once

#include <cstdint>

namespace invidx {

inline constexpr uint32_t kHashedCollections = 1024;
inline constexpr uint32_t kCollections = kHashedCollections + 26 * 26 * 26;  // 18,600

}  // namespace invidx
