#include "store/codecs/bit_packing.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

namespace invidx::codecs {
namespace {

// Packed words live in std::string bytes at any alignment; gcc reads and
// writes them through this type without assuming alignment or breaking
// aliasing rules, and still vectorizes the loops.
typedef uint32_t __attribute__((__may_alias__, __aligned__(1))) UnalignedWord;

constexpr size_t kLanes = 4;

template <unsigned B>
constexpr uint32_t kMask = B >= 32 ? 0xFFFFFFFFu : (uint32_t{1} << B) - 1;

// Value k of every lane: the same constant shifts for the 4 lanes, so the
// lane loop becomes one vector operation. __restrict: without it gcc checks
// for overlap at every field and reloads the input words.
template <unsigned B, unsigned K>
inline void unpack_field(const UnalignedWord* __restrict in, uint32_t* __restrict out) {
    constexpr unsigned bit = K * B;
    constexpr unsigned word = bit / 32;
    constexpr unsigned shift = bit % 32;
    for (size_t lane = 0; lane < kLanes; ++lane) {
        uint32_t value = in[kLanes * word + lane] >> shift;
        if constexpr (shift + B > 32) value |= in[kLanes * (word + 1) + lane] << (32 - shift);
        out[kLanes * K + lane] = value & kMask<B>;
    }
}

template <unsigned B, unsigned K>
inline void pack_field(const uint32_t* __restrict values, UnalignedWord* __restrict out) {
    constexpr unsigned bit = K * B;
    constexpr unsigned word = bit / 32;
    constexpr unsigned shift = bit % 32;
    for (size_t lane = 0; lane < kLanes; ++lane) {
        const uint32_t value = values[kLanes * K + lane] & kMask<B>;
        // Words are filled in order: the first field of a word assigns it.
        if constexpr (shift == 0) {
            out[kLanes * word + lane] = value;
        } else {
            out[kLanes * word + lane] |= value << shift;
        }
        if constexpr (shift + B > 32) out[kLanes * (word + 1) + lane] = value >> (32 - shift);
    }
}

template <unsigned B, unsigned... K>
void unpack_group(const char* in, uint32_t* __restrict out, std::integer_sequence<unsigned, K...>) {
    const auto* __restrict words = reinterpret_cast<const UnalignedWord*>(in);
    (unpack_field<B, K>(words, out), ...);
}

template <unsigned B, unsigned... K>
void pack_group(const uint32_t* __restrict values, char* out, std::integer_sequence<unsigned, K...>) {
    auto* __restrict words = reinterpret_cast<UnalignedWord*>(out);
    (pack_field<B, K>(values, words), ...);
}

constexpr auto kFields = std::make_integer_sequence<unsigned, kGroupValues / kLanes>{};

template <unsigned B>
void unpack_group_b(const char* in, uint32_t* out) {
    if constexpr (B == 0) {
        std::memset(out, 0, kGroupValues * sizeof(uint32_t));
    } else if constexpr (B == 32) {
        std::memcpy(out, in, kGroupValues * sizeof(uint32_t));  // word 4·j + l is value 4·j + l
    } else {
        unpack_group<B>(in, out, kFields);
    }
}

template <unsigned B>
void pack_group_b(const uint32_t* values, char* out) {
    if constexpr (B == 32) {
        std::memcpy(out, values, kGroupValues * sizeof(uint32_t));
    } else if constexpr (B > 0) {
        pack_group<B>(values, out, kFields);
    }
}

using UnpackGroup = void (*)(const char*, uint32_t*);
using PackGroup = void (*)(const uint32_t*, char*);

template <unsigned... B>
constexpr std::array<UnpackGroup, 33> unpack_table(std::integer_sequence<unsigned, B...>) {
    return {&unpack_group_b<B>...};
}
template <unsigned... B>
constexpr std::array<PackGroup, 33> pack_table(std::integer_sequence<unsigned, B...>) {
    return {&pack_group_b<B>...};
}

constexpr auto kUnpackGroup = unpack_table(std::make_integer_sequence<unsigned, 33>{});
constexpr auto kPackGroup = pack_table(std::make_integer_sequence<unsigned, 33>{});

void pack_tail(std::span<const uint32_t> values, uint32_t b, std::string& out) {
    if (b == 0 || values.empty()) return;
    const uint64_t mask = (uint64_t{1} << b) - 1;
    uint64_t buffer = 0;
    unsigned filled = 0;
    for (const uint32_t value : values) {
        buffer |= (value & mask) << filled;
        filled += b;
        while (filled >= 8) {
            out.push_back(static_cast<char>(buffer & 0xFF));
            buffer >>= 8;
            filled -= 8;
        }
    }
    if (filled > 0) out.push_back(static_cast<char>(buffer & 0xFF));
}

void unpack_tail(const char* in, uint32_t b, std::span<uint32_t> out) {
    if (b == 0) {
        std::fill(out.begin(), out.end(), 0u);
        return;
    }
    // At most 127 values of 32 bits: copy into zero-padded 64-bit words so
    // that every field is read with one or two aligned loads.
    std::array<uint64_t, (kGroupValues * 32) / 64 + 1> words;
    const size_t bytes = (out.size() * b + 7) / 8;
    std::memset(words.data(), 0, (bytes / 8 + 1) * sizeof(uint64_t));  // only what is read
    std::memcpy(words.data(), in, bytes);
    const uint64_t mask = (uint64_t{1} << b) - 1;
    uint64_t bit = 0;
    for (uint32_t& value : out) {
        const uint64_t word = bit / 64;
        const unsigned shift = bit % 64;
        uint64_t field = words[word] >> shift;
        if (shift + b > 64) field |= words[word + 1] << (64 - shift);
        value = static_cast<uint32_t>(field & mask);
        bit += b;
    }
}

}  // namespace

void pack128(const uint32_t* values, uint32_t b, char* out) { kPackGroup[b](values, out); }

void unpack128(const char* in, uint32_t b, uint32_t* out) { kUnpackGroup[b](in, out); }

void pack(std::span<const uint32_t> values, uint32_t b, std::string& out) {
    const size_t groups = values.size() / kGroupValues;
    size_t at = out.size();
    out.resize(at + groups * 16 * b);
    for (size_t g = 0; g < groups; ++g, at += 16 * b) pack128(values.data() + g * kGroupValues, b, out.data() + at);
    pack_tail(values.subspan(groups * kGroupValues), b, out);
}

void unpack(const char* in, uint32_t b, std::span<uint32_t> out) {
    const size_t groups = out.size() / kGroupValues;
    for (size_t g = 0; g < groups; ++g, in += 16 * b) unpack128(in, b, out.data() + g * kGroupValues);
    unpack_tail(in, b, out.subspan(groups * kGroupValues));
}

}  // namespace invidx::codecs
