// The scalar tokenizer of SPEC §3 as a step function over raw bytes, one
// implementation for host and device: tokenize() (tokenize.hpp) and GPU
// parsing both take their tokens from it. With `html`, the SPEC §2
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

// Walks `length` bytes of `text` token by token. `Size` indexes the text
// (size_t on the host, uint32_t for device documents).
template <class Size>
class TokenStepper {
public:
    INVIDX_HOST_DEVICE TokenStepper(const unsigned char* text, Size length, bool html)
        : text_(text), length_(length), html_(html) {}

    // The next token of at most kMaxTokenBytes bytes (longer ones are
    // skipped): its bytes, ASCII A-Z lowercased, go to token[0, n) (room for
    // kMaxTokenBytes) and its first byte's index in the text to `start`;
    // returns n, or 0 when the text has no more tokens. A token's bytes are
    // its text bytes [start, start + n) with ASCII lowercased.
    INVIDX_HOST_DEVICE uint32_t next(unsigned char* token, Size& start) {
        Size token_bytes = 0;  // may exceed kMaxTokenBytes; only the first ones are stored
        while (at_ < length_) {
            const unsigned char byte = text_[at_];
            if (byte < 0x80) {
                const unsigned char lowered = utf8::ascii_token_byte_fast(byte);
                if (lowered != 0) {
                    if (token_bytes == 0) start = at_;
                    if (token_bytes < kMaxTokenBytes) token[token_bytes] = lowered;
                    ++token_bytes;
                    ++at_;
                    continue;
                }
                Size after = at_ + 1;
                if (html_ && (byte == '<' || byte == '&')) {
                    const Size end = html_rules::construct_end(text_, length_, at_);
                    if (end != 0) after = end;
                }
                at_ = after;
            } else {
                const utf8::Character character = utf8::classify_multibyte(text_ + at_, text_ + length_);
                if (character.token) {
                    if (token_bytes == 0) start = at_;
                    if (token_bytes + character.bytes <= kMaxTokenBytes) {
                        for (uint32_t i = 0; i < character.bytes; ++i) token[token_bytes + i] = text_[at_ + i];
                    }
                    token_bytes += character.bytes;
                    at_ += character.bytes;
                    continue;
                }
                at_ += character.bytes;
            }
            // A separator (byte, ill-formed byte or construct) ended the run.
            if (token_bytes != 0 && token_bytes <= kMaxTokenBytes) return static_cast<uint32_t>(token_bytes);
            token_bytes = 0;
        }
        if (token_bytes != 0 && token_bytes <= kMaxTokenBytes) return static_cast<uint32_t>(token_bytes);
        return 0;
    }

private:
    const unsigned char* text_;
    Size length_;
    Size at_ = 0;
    bool html_;
};

}  // namespace invidx
