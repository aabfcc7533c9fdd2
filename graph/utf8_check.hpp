// Whether text is well-formed UTF-8 (Unicode Table 3-7: no overlong forms,
// no surrogates, nothing above U+10FFFF), the rule a JSON writer applies.
// Words that end up in manifest.json are checked with it when the pipeline
// is read, so a bad byte is an error naming its file and line at once, not
// a failed publish after the whole build.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

namespace invidx {

// The offset of the first byte that is not part of a well-formed UTF-8
// sequence, or none when the whole text is well-formed.
inline std::optional<size_t> first_invalid_utf8(std::string_view text) {
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
    size_t i = 0;
    while (i < text.size()) {
        const unsigned char lead = byte(i);
        size_t length = 0;
        unsigned char low = 0x80, high = 0xBF;  // the second byte's range
        if (lead < 0x80) {
            ++i;
            // ASCII runs eight bytes at a time: most text is mostly ASCII.
            uint64_t word = 0;
            while (i + 8 <= text.size() && (std::memcpy(&word, text.data() + i, 8), word & 0x8080808080808080ULL) == 0)
                i += 8;
            continue;
        } else if (lead >= 0xC2 && lead <= 0xDF) {
            length = 2;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            length = 3;
            if (lead == 0xE0) low = 0xA0;
            if (lead == 0xED) high = 0x9F;
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            length = 4;
            if (lead == 0xF0) low = 0x90;
            if (lead == 0xF4) high = 0x8F;
        } else {
            return i;
        }
        if (i + length > text.size()) return i;
        if (byte(i + 1) < low || byte(i + 1) > high) return i;
        for (size_t k = 2; k < length; ++k)
            if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return i;
        i += length;
    }
    return std::nullopt;
}

}  // namespace invidx
