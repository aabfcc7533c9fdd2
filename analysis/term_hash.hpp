// A fast 64-bit hash for short byte strings (tokens, terms), used by
// in-memory tables only (the analyzer's, the CPU indexer's recent terms);
// it never reaches the disk.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace invidx {

// Terms of up to kShortTermBytes (nearly all) hash as two little-endian
// words: bytes 0-7 and 8-15, zero past the end. How the words are gathered
// differs by what may be read (short_term_words: only the term's bytes;
// padded_short_term_words: 16 bytes from its start, masked, no branch on
// the length); the hash is the same.
inline constexpr size_t kShortTermBytes = 16;

struct ShortTermWords {
    uint64_t low;
    uint64_t high;
    bool operator==(const ShortTermWords&) const = default;
};

namespace term_hash_detail {

inline constexpr uint64_t kMultiplier = 0x9E3779B97F4A7C15ull;  // 2^64 / golden ratio

inline uint64_t load64(const char* p) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    return word;
}

inline uint64_t load32(const char* p) {
    uint32_t word;
    std::memcpy(&word, p, 4);
    return word;
}

// The bits of a word's first `bytes` bytes (0..8).
constexpr uint64_t first_bytes_mask(size_t bytes) { return bytes >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1; }

struct WordMasks {
    uint64_t low, high;
};
inline constexpr auto kWordMasks = [] {
    std::array<WordMasks, kShortTermBytes + 1> masks{};
    for (size_t n = 0; n <= kShortTermBytes; ++n) {
        masks[n] = WordMasks{first_bytes_mask(n), n > 8 ? first_bytes_mask(n - 8) : 0};
    }
    return masks;
}();

}  // namespace term_hash_detail

// The words of a term of `n` <= kShortTermBytes bytes, reading only those
// bytes: overlapping loads shifted into place, no byte-wise copy (whose
// stores would stall the loads that follow).
inline ShortTermWords short_term_words(const char* p, size_t n) {
    using namespace term_hash_detail;
    if (n >= 8) return {load64(p), n > 8 ? load64(p + n - 8) >> (8 * (16 - n)) : 0};
    if (n >= 4) return {load32(p) | (load32(p + n - 4) >> (8 * (8 - n))) << 32, 0};
    uint64_t low = 0;
    for (size_t i = 0; i < n; ++i) low |= uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
    return {low, 0};
}

// The same words when 16 bytes from `p` may be read (what lies past the
// term's `n` <= kShortTermBytes bytes is masked off).
inline ShortTermWords padded_short_term_words(const char* p, size_t n) {
    using namespace term_hash_detail;
    const WordMasks& mask = kWordMasks[n];
    return {load64(p) & mask.low, load64(p + 8) & mask.high};
}

// The hash of a short term from its words.
inline uint64_t hash_short_term(ShortTermWords words, size_t length) {
    using term_hash_detail::kMultiplier;
    uint64_t h = (length * kMultiplier ^ words.low) * kMultiplier;
    h ^= h >> 29;
    h = (h ^ words.high) * kMultiplier;
    return h ^ (h >> 32);
}

inline uint64_t hash_long_term(std::string_view term) {
    using namespace term_hash_detail;
    uint64_t h = term.size() * kMultiplier;
    size_t i = 0;
    for (; i + 8 <= term.size(); i += 8) {  // 8 bytes at a time
        h = (h ^ load64(term.data() + i)) * kMultiplier;
        h ^= h >> 29;
    }
    if (i != term.size()) h = (h ^ load64(term.data() + term.size() - 8)) * kMultiplier;  // the last bytes, overlapping
    return h ^ (h >> 32);
}

inline uint64_t hash_term(std::string_view term) {
    if (term.size() <= kShortTermBytes) return hash_short_term(short_term_words(term.data(), term.size()), term.size());
    return hash_long_term(term);
}

// hash_term of a term of which 16 bytes from its start may be read.
inline uint64_t hash_padded_term(const char* p, size_t n) {
    if (n <= kShortTermBytes) return hash_short_term(padded_short_term_words(p, n), n);
    return hash_long_term(std::string_view(p, n));
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
