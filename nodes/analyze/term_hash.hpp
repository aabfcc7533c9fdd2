// A fast 64-bit hash for short byte strings (tokens, terms), used by the
// analyzer's in-memory tables only; it never reaches the disk.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace invidx {

inline uint64_t hash_term(std::string_view term) {
    constexpr uint64_t kMultiplier = 0x9E3779B97F4A7C15ull;  // 2^64 / golden ratio
    uint64_t h = term.size() * kMultiplier;
    size_t i = 0;
    for (; i + 8 <= term.size(); i += 8) {  // 8 bytes at a time
        uint64_t word;
        std::memcpy(&word, term.data() + i, 8);
        h = (h ^ word) * kMultiplier;
        h ^= h >> 29;
    }
    uint64_t tail = 0;
    std::memcpy(&tail, term.data() + i, term.size() - i);
    h = (h ^ tail) * kMultiplier;
    return h ^ (h >> 32);
}

}  // namespace invidx
