// The scalar tokenizer of CONTENT.md §4 over raw bytes, one
// implementation for host and device: tokenize() (tokenize.hpp) and GPU
// parsing both take their tokens from it. With `html`, the CONTENT.md §3
// constructs (html_rules.hpp) are skipped where they start, each one
// separating the tokens on either side exactly as the space strip_html puts
// in its place does: a construct starts with an ASCII '<' or '&', which no
// well-formed UTF-8 character contains, so no character spans one.
#pragma once

#include <cstddef>
#include <cstdint>

#include "analysis/html_rules.hpp"
#include "analysis/token_bytes.hpp"
#include "invidx/host_device.hpp"

namespace invidx {

namespace utf8 {

// ascii_token_byte() as a table: the host tokenizer's innermost loop looks up
// one byte instead of comparing three ranges.
struct AsciiTokenTable {
    unsigned char lowered[128];
};

inline constexpr AsciiTokenTable kAsciiTokenTable = [] {
    AsciiTokenTable table{};
    for (int c = 0; c < 128; ++c) table.lowered[c] = ascii_token_byte(static_cast<unsigned char>(c));
    return table;
}();

// ascii_token_byte() for a byte < 0x80.
INVIDX_HOST_DEVICE inline unsigned char ascii_token_byte_fast(unsigned char byte) {
#if defined(__CUDA_ARCH__)
    return ascii_token_byte(byte);
#else
    return kAsciiTokenTable.lowered[byte];
#endif
}

}  // namespace utf8

// Calls on_token(const unsigned char* token, uint32_t length, Size start)
// for each token of the `length` bytes of `text` of at most kMaxTokenBytes
// bytes, in order: its bytes with ASCII A-Z lowercased (valid during the
// call only), which are the text's bytes [start, start + length) lowercased.
// `Size` indexes the text (size_t on the host, uint32_t for device
// documents). A callback rather than a resumable step: the loop keeps its
// state in registers, which the host's scalar scan needs for its speed.
template <class Size, class OnToken>
INVIDX_HOST_DEVICE void for_each_token(const unsigned char* text, Size length, bool html, OnToken&& on_token) {
    unsigned char token[kMaxTokenBytes];
    Size token_bytes = 0;  // may exceed kMaxTokenBytes; only the first ones are stored
    Size token_start = 0;
    Size at = 0;
    while (at < length) {
        const unsigned char byte = text[at];
        if (byte < 0x80) {
            const unsigned char lowered = utf8::ascii_token_byte_fast(byte);
            if (lowered != 0) {
                if (token_bytes == 0) token_start = at;
                if (token_bytes < kMaxTokenBytes) token[token_bytes] = lowered;
                ++token_bytes;
                ++at;
                continue;
            }
            Size after = at + 1;
            if (html && (byte == '<' || byte == '&')) {
                const Size end = html_rules::construct_end(text, length, at);
                if (end != 0) after = end;
            }
            at = after;
        } else {
            const utf8::Character character = utf8::classify_multibyte(text + at, text + length);
            if (character.token) {
                if (token_bytes == 0) token_start = at;
                if (token_bytes + character.bytes <= kMaxTokenBytes) {
                    for (uint32_t i = 0; i < character.bytes; ++i) token[token_bytes + i] = text[at + i];
                }
                token_bytes += character.bytes;
                at += character.bytes;
                continue;
            }
            at += character.bytes;
        }
        // A separator (byte, ill-formed byte or construct) ended the run.
        if (token_bytes != 0) {
            if (token_bytes <= kMaxTokenBytes) on_token(static_cast<const unsigned char*>(token), static_cast<uint32_t>(token_bytes), token_start);
            token_bytes = 0;
        }
    }
    if (token_bytes != 0 && token_bytes <= kMaxTokenBytes) {
        on_token(static_cast<const unsigned char*>(token), static_cast<uint32_t>(token_bytes), token_start);
    }
}

}  // namespace invidx
