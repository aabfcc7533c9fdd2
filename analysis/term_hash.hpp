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
    // The last 1..7 bytes without a variable-length memcpy: its byte stores
    // would stall the load that follows (no store forwarding). Overlapping
    // loads instead; for a given length the bytes still determine `tail`.
    const size_t rest = term.size() - i;
    uint64_t tail = 0;
    if (rest != 0 && term.size() >= 8) {
        std::memcpy(&tail, term.data() + term.size() - 8, 8);
    } else if (rest >= 4) {
        uint32_t low, high;
        std::memcpy(&low, term.data(), 4);
        std::memcpy(&high, term.data() + rest - 4, 4);
        tail = low | uint64_t{high} << 32;
    } else if (rest != 0) {
        const auto* p = reinterpret_cast<const unsigned char*>(term.data());
        tail = uint64_t{p[0]} | uint64_t{p[rest / 2]} << 8 | uint64_t{p[rest - 1]} << 16;
    }
    h = (h ^ tail) * kMultiplier;
    return h ^ (h >> 32);
}

// Whether the `n` bytes at `a` and `b` are equal: memcmp without the call,
// for the short strings of the analyzer's tables. Loads overlap rather than
// read past either end.
inline bool same_bytes(const char* a, const char* b, size_t n) {
    if (n >= 8) {
        uint64_t x, y;
        for (size_t i = 0; i + 8 < n; i += 8) {
            std::memcpy(&x, a + i, 8);
            std::memcpy(&y, b + i, 8);
            if (x != y) return false;
        }
        std::memcpy(&x, a + n - 8, 8);
        std::memcpy(&y, b + n - 8, 8);
        return x == y;
    }
    if (n >= 4) {
        uint32_t x0, y0, x1, y1;
        std::memcpy(&x0, a, 4);
        std::memcpy(&y0, b, 4);
        std::memcpy(&x1, a + n - 4, 4);
        std::memcpy(&y1, b + n - 4, 4);
        return x0 == y0 && x1 == y1;
    }
    for (size_t i = 0; i < n; ++i) {
        if (a[i] != b[i]) return false;
    }
    return true;
}

}  // namespace invidx
