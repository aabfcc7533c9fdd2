#include "nodes/frame/id_contents_line.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "graph/json_string.hpp"
#include "graph/utf8_check.hpp"

namespace invidx {
namespace {

constexpr uint64_t kOnes = 0x0101010101010101ULL;
constexpr uint64_t kHighBits = 0x8080808080808080ULL;

bool has_zero_byte(uint64_t word) { return ((word - kOnes) & ~word & kHighBits) != 0; }

// Whether any of the 8 bytes at p ends a run of a string's plain
// characters: a quote, a backslash or a control character (below 0x20).
bool has_string_special(const char* p) {
    uint64_t word = 0;
    std::memcpy(&word, p, 8);
    return has_zero_byte(word ^ (kOnes * '"')) || has_zero_byte(word ^ (kOnes * '\\')) ||
           ((word - kOnes * 0x20) & ~word & kHighBits) != 0;
}

// JSON's whitespace (RFC 8259 §2).
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

void skip_spaces(std::string_view s, size_t& i) {
    while (i < s.size() && is_space(s[i])) ++i;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Four hex digits at s[i]; i moves past them.
bool read_hex4(std::string_view s, size_t& i, uint32_t& value) {
    if (i + 4 > s.size()) return false;
    value = 0;
    for (size_t k = 0; k < 4; ++k) {
        const int digit = hex_digit(s[i + k]);
        if (digit < 0) return false;
        value = value << 4 | static_cast<uint32_t>(digit);
    }
    i += 4;
    return true;
}

void append_utf8(std::string& out, uint32_t code_point) {
    if (code_point < 0x80) {
        out.push_back(static_cast<char>(code_point));
    } else if (code_point < 0x800) {
        out.push_back(static_cast<char>(0xC0 | code_point >> 6));
        out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
    } else if (code_point < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | code_point >> 12));
        out.push_back(static_cast<char>(0x80 | (code_point >> 6 & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | code_point >> 18));
        out.push_back(static_cast<char>(0x80 | (code_point >> 12 & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (code_point >> 6 & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
    }
}

// A string's characters from s[i], just past its opening quote, decoded
// into `out`; i moves past the closing quote. False for anything JSON
// refuses (a raw control character, an unknown escape, a lone surrogate,
// no closing quote).
bool read_string(std::string_view s, size_t& i, std::string& out) {
    out.clear();
    while (true) {
        size_t run = i;
        while (run + 8 <= s.size() && !has_string_special(s.data() + run)) run += 8;
        while (run < s.size()) {
            const auto c = static_cast<unsigned char>(s[run]);
            if (c == '"' || c == '\\' || c < 0x20) break;
            ++run;
        }
        out.append(s.data() + i, run - i);
        // Stopped at the end, a quote, a backslash or a raw control character.
        if (run == s.size() || (s[run] != '"' && s[run] != '\\')) return false;
        if (s[run] == '"') {
            i = run + 1;
            return true;
        }
        if (run + 1 == s.size()) return false;
        const char escape = s[run + 1];
        i = run + 2;
        switch (escape) {
            case '"': out.push_back('"'); break;
            case '\\': out.push_back('\\'); break;
            case '/': out.push_back('/'); break;
            case 'b': out.push_back('\b'); break;
            case 'f': out.push_back('\f'); break;
            case 'n': out.push_back('\n'); break;
            case 'r': out.push_back('\r'); break;
            case 't': out.push_back('\t'); break;
            case 'u': {
                uint32_t code_point = 0;
                if (!read_hex4(s, i, code_point)) return false;
                if (code_point >= 0xDC00 && code_point <= 0xDFFF) return false;  // a low surrogate first
                if (code_point >= 0xD800 && code_point <= 0xDBFF) {
                    // A high surrogate: its low one must follow as \uDC00-\uDFFF.
                    uint32_t low = 0;
                    if (i + 2 > s.size() || s[i] != '\\' || s[i + 1] != 'u') return false;
                    i += 2;
                    if (!read_hex4(s, i, low) || low < 0xDC00 || low > 0xDFFF) return false;
                    code_point = 0x10000 + ((code_point - 0xD800) << 10) + (low - 0xDC00);
                }
                append_utf8(out, code_point);
                break;
            }
            default: return false;
        }
    }
}

}  // namespace

bool read_id_contents_line(std::string_view line, std::string& id, std::string& contents, std::string& metadata) {
    // JSON's strings must be UTF-8, and nothing outside them may be other
    // than ASCII: one check of the whole line covers both.
    if (first_invalid_utf8(line)) return false;
    thread_local std::vector<std::pair<std::string, std::string>> others;  // fields but id and contents
    thread_local std::string key;
    others.clear();
    size_t i = 0;
    skip_spaces(line, i);
    if (i == line.size() || line[i] != '{') return false;
    ++i;
    bool have_id = false, have_contents = false;
    while (true) {
        skip_spaces(line, i);
        if (i == line.size() || line[i] != '"') return false;
        ++i;
        if (!read_string(line, i, key)) return false;
        skip_spaces(line, i);
        if (i == line.size() || line[i] != ':') return false;
        ++i;
        skip_spaces(line, i);
        if (i == line.size() || line[i] != '"') return false;  // a value that is not a string
        ++i;
        std::string* value = nullptr;
        if (key == "id") {
            if (have_id) return false;
            have_id = true;
            value = &id;
        } else if (key == "contents") {
            if (have_contents) return false;
            have_contents = true;
            value = &contents;
        } else {
            others.emplace_back(key, std::string());
            value = &others.back().second;
        }
        if (!read_string(line, i, *value)) return false;
        skip_spaces(line, i);
        if (i == line.size()) return false;
        if (line[i] == ',') {
            ++i;
            continue;
        }
        if (line[i] != '}') return false;
        ++i;
        break;
    }
    skip_spaces(line, i);
    if (i != line.size() || !have_id || !have_contents) return false;
    // The other fields as nlohmann dumps its object: keys in byte order.
    metadata.clear();
    if (others.empty()) return true;
    std::sort(others.begin(), others.end());
    metadata.push_back('{');
    for (size_t f = 0; f < others.size(); ++f) {
        if (f > 0 && others[f].first == others[f - 1].first) return false;  // a key twice
        if (f > 0) metadata.push_back(',');
        append_json_string(metadata, others[f].first);
        metadata.push_back(':');
        append_json_string(metadata, others[f].second);
    }
    metadata.push_back('}');
    return true;
}

}  // namespace invidx
