// The tokenizer of SPEC §3, over UTF-8 bytes. It is the innermost loop of the
// engine, so it is a template (the callback inlines) and allocates nothing:
// each token is lowercased into a fixed buffer on the stack. The byte classes
// themselves are in token_bytes.hpp, shared with device code.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analysis/token_bytes.hpp"

namespace invidx {

namespace utf8 {

// ascii_token_byte() as a table: the CPU tokenizer's innermost loop looks up
// one byte instead of comparing three ranges.
inline constexpr std::array<char, 128> kAsciiTokenBytes = [] {
    std::array<char, 128> table{};
    for (int c = 0; c < 128; ++c) table[c] = static_cast<char>(ascii_token_byte(static_cast<unsigned char>(c)));
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
