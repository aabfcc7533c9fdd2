#include "tools/invidx/output_escaping.hpp"

#include <cstddef>
#include <cstdint>

namespace invidx::cli {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void append_hex(std::string& out, std::string_view prefix, unsigned char byte) {
    out += prefix;
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
}

bool is_continuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

// The length of the valid UTF-8 sequence at text[at] (shortest form, no
// surrogates, at most U+10FFFF), and its code point; 0 when not valid.
size_t utf8_sequence(std::string_view text, size_t at, uint32_t& code_point) {
    const auto lead = static_cast<unsigned char>(text[at]);
    size_t length = 0;
    uint32_t minimum = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2, minimum = 0x80, code_point = lead & 0x1F;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3, minimum = 0x800, code_point = lead & 0x0F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4, minimum = 0x10000, code_point = lead & 0x07;
    } else {
        return 0;
    }
    if (at + length > text.size()) return 0;
    for (size_t i = 1; i < length; ++i) {
        const auto byte = static_cast<unsigned char>(text[at + i]);
        if (!is_continuation(byte)) return 0;
        code_point = (code_point << 6) | (byte & 0x3F);
    }
    if (code_point < minimum || code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF)) return 0;
    return length;
}

}  // namespace

std::string printable(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (size_t at = 0; at < text.size();) {
        const auto byte = static_cast<unsigned char>(text[at]);
        if (byte < 0x80) {
            if (byte < 0x20 || byte == 0x7f) {
                append_hex(out, "\\x", byte);
            } else {
                out += text[at];
            }
            ++at;
            continue;
        }
        uint32_t code_point = 0;
        const size_t length = utf8_sequence(text, at, code_point);
        // The C1 controls (U+0080..U+009F) include CSI, which terminals obey too.
        if (length == 0 || code_point <= 0x9F) {
            const size_t end = length == 0 ? at + 1 : at + length;
            for (; at < end; ++at) append_hex(out, "\\x", static_cast<unsigned char>(text[at]));
            continue;
        }
        out.append(text.substr(at, length));
        at += length;
    }
    return out;
}

std::string trec_field(std::string_view name) {
    std::string out;
    out.reserve(name.size());
    for (const char c : name) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte <= 0x20 || byte == 0x7f) {
            append_hex(out, "%", byte);
        } else {
            out += c;
        }
    }
    return out;
}

}  // namespace invidx::cli
