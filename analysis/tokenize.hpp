// The tokenizer of SPEC §3, over UTF-8 bytes. It is the innermost loop of the
// engine, so it is a template (the callback inlines) and allocates nothing:
// each token is lowercased into a fixed buffer on the stack.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace invidx {

// Longer tokens are dropped and take no position (SPEC §3).
inline constexpr size_t kMaxTokenBytes = 255;

namespace utf8 {

// What the bytes at some position are, as far as tokens go.
struct Character {
    uint8_t bytes;  // bytes the character spans (1 for every byte of an ill-formed sequence)
    bool token;     // a token character (SPEC §3)
};

// Code points that are well-formed UTF-8 but still separate tokens (SPEC §3):
// Latin-1 punctuation and symbols, the multiplication and division signs,
// General Punctuation and CJK Symbols and Punctuation.
constexpr bool is_separator_code_point(uint32_t code_point) {
    return (code_point >= 0x80 && code_point <= 0xBF) || code_point == 0xD7 || code_point == 0xF7 ||
           (code_point >= 0x2000 && code_point <= 0x206F) ||
           (code_point >= 0x3000 && code_point <= 0x303F);
}

constexpr bool is_continuation(unsigned char byte, unsigned char low = 0x80, unsigned char high = 0xBF) {
    return byte >= low && byte <= high;
}

// Classifies the non-ASCII byte at `p` (p < end). Well-formedness follows
// Unicode Table 3-7, which rules out overlong forms, surrogates and code
// points above U+10FFFF through the ranges allowed for the second byte. A
// byte that does not start a well-formed sequence is one separator byte; the
// next character is tried at the byte after it, so a truncated sequence
// followed by a valid character loses only its own bytes.
constexpr Character classify_multibyte(const unsigned char* p, const unsigned char* end) {
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

// For each ASCII byte: its lowercase form if it is a token character, else 0.
inline constexpr std::array<char, 128> kAsciiTokenBytes = [] {
    std::array<char, 128> table{};
    for (int c = '0'; c <= '9'; ++c) table[c] = static_cast<char>(c);
    for (int c = 'a'; c <= 'z'; ++c) table[c] = static_cast<char>(c);
    for (int c = 'A'; c <= 'Z'; ++c) table[c] = static_cast<char>(c - 'A' + 'a');
    return table;
}();

}  // namespace utf8

// Calls on_token(std::string_view) for each token of `text` of at most
// kMaxTokenBytes bytes, in order, ASCII letters lowercased. The view is valid
// only during the call.
template <class OnToken>
void tokenize(std::string_view text, OnToken&& on_token) {
    char token[kMaxTokenBytes];
    size_t token_bytes = 0;  // may exceed kMaxTokenBytes; only the first ones are stored
    const auto end_token = [&] {
        if (token_bytes != 0 && token_bytes <= kMaxTokenBytes) {
            on_token(std::string_view(token, token_bytes));
        }
        token_bytes = 0;
    };

    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const auto* const end = p + text.size();
    while (p < end) {
        if (*p < 0x80) {
            const char lowered = utf8::kAsciiTokenBytes[*p];
            if (lowered != 0) {
                if (token_bytes < kMaxTokenBytes) token[token_bytes] = lowered;
                ++token_bytes;
            } else {
                end_token();
            }
            ++p;
            continue;
        }
        const utf8::Character character = utf8::classify_multibyte(p, end);
        if (character.token) {
            if (token_bytes + character.bytes <= kMaxTokenBytes) {
                for (uint8_t i = 0; i < character.bytes; ++i) token[token_bytes + i] = static_cast<char>(p[i]);
            }
            token_bytes += character.bytes;
        } else {
            end_token();
        }
        p += character.bytes;
    }
    end_token();
}

}  // namespace invidx
