// The byte classes of CONTENT.md §4: which bytes make tokens and how ASCII letters
// are folded. Host and device code share this one implementation (the CPU
// tokenizer and GPU parsing), so it uses nothing of the C++ runtime and every
// function is INVIDX_HOST_DEVICE.
#pragma once

#include <cstddef>
#include <cstdint>

#include "invidx/host_device.hpp"

namespace invidx {

// Longer tokens are dropped and take no position (CONTENT.md §4).
inline constexpr size_t kMaxTokenBytes = 255;

namespace utf8 {

// What the bytes at some position are, as far as tokens go.
struct Character {
    uint8_t bytes;  // bytes the character spans (1 for every byte of an ill-formed sequence)
    bool token;     // a token character (CONTENT.md §4)
};

// Code points that are well-formed UTF-8 but still separate tokens (CONTENT.md §4):
// Latin-1 punctuation and symbols, the multiplication and division signs,
// General Punctuation and CJK Symbols and Punctuation.
INVIDX_HOST_DEVICE constexpr bool is_separator_code_point(uint32_t code_point) {
    return (code_point >= 0x80 && code_point <= 0xBF) || code_point == 0xD7 || code_point == 0xF7 ||
           (code_point >= 0x2000 && code_point <= 0x206F) ||
           (code_point >= 0x3000 && code_point <= 0x303F);
}

INVIDX_HOST_DEVICE constexpr bool is_continuation(unsigned char byte, unsigned char low = 0x80,
                                                  unsigned char high = 0xBF) {
    return byte >= low && byte <= high;
}

// Classifies the non-ASCII byte at `p` (p < end). Well-formedness follows
// Unicode Table 3-7, which rules out overlong forms, surrogates and code
// points above U+10FFFF through the ranges allowed for the second byte. A
// byte that does not start a well-formed sequence is one separator byte; the
// next character is tried at the byte after it, so a truncated sequence
// followed by a valid character loses only its own bytes.
INVIDX_HOST_DEVICE constexpr Character classify_multibyte(const unsigned char* p, const unsigned char* end) {
    constexpr Character kIllFormed{1, false};
    const unsigned char lead = p[0];
    const size_t available = static_cast<size_t>(end - p);
    if (lead >= 0xC2 && lead <= 0xDF) {
        if (available < 2 || !is_continuation(p[1])) return kIllFormed;
        const uint32_t code_point = (uint32_t{lead} & 0x1F) << 6 | (p[1] & 0x3F);
        return {2, !is_separator_code_point(code_point)};
    }
    if (lead >= 0xE0 && lead <= 0xEF) {
        const unsigned char low = lead == 0xE0 ? 0xA0 : 0x80;   // E0: no overlong forms
        const unsigned char high = lead == 0xED ? 0x9F : 0xBF;  // ED: no surrogates
        if (available < 3 || !is_continuation(p[1], low, high) || !is_continuation(p[2])) return kIllFormed;
        const uint32_t code_point = (uint32_t{lead} & 0x0F) << 12 | (uint32_t{p[1]} & 0x3F) << 6 | (p[2] & 0x3F);
        return {3, !is_separator_code_point(code_point)};
    }
    if (lead >= 0xF0 && lead <= 0xF4) {
        const unsigned char low = lead == 0xF0 ? 0x90 : 0x80;   // F0: no overlong forms
        const unsigned char high = lead == 0xF4 ? 0x8F : 0xBF;  // F4: nothing above U+10FFFF
        if (available < 4 || !is_continuation(p[1], low, high) || !is_continuation(p[2]) ||
            !is_continuation(p[3])) {
            return kIllFormed;
        }
        return {4, true};  // no 4-byte code point is in a separator range
    }
    return kIllFormed;  // stray continuation byte, C0/C1 (always overlong) or F5..FF
}

// For an ASCII byte: its lowercase form if it is a token character (a letter
// or a digit), else 0.
INVIDX_HOST_DEVICE constexpr unsigned char ascii_token_byte(unsigned char byte) {
    if ((byte >= '0' && byte <= '9') || (byte >= 'a' && byte <= 'z')) return byte;
    if (byte >= 'A' && byte <= 'Z') return static_cast<unsigned char>(byte - 'A' + 'a');
    return 0;
}

}  // namespace utf8
}  // namespace invidx
