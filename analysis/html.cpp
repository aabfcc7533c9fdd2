#include "analysis/html.hpp"

#include <algorithm>
#include <cstring>

namespace invidx {
namespace {

constexpr size_t kMaxReferenceBytes = 31;  // SPEC §2.4

bool is_ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool is_reference_byte(char c) { return is_ascii_letter(c) || (c >= '0' && c <= '9') || c == '#'; }

bool is_html_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + ('a' - 'A')) : c; }

// True when `in` holds the lowercase ASCII `word` at `at`, ignoring ASCII case.
bool matches_ignoring_case(std::string_view in, size_t at, std::string_view word) {
    if (in.size() - at < word.size()) return false;
    for (size_t i = 0; i < word.size(); ++i) {
        if (ascii_lower(in[at + i]) != word[i]) return false;
    }
    return true;
}

// Position of the first case-insensitive occurrence of lowercase `word` at
// or after `from`, or npos.
size_t find_ignoring_case(std::string_view in, size_t from, std::string_view word) {
    while (from < in.size()) {
        const void* hit = std::memchr(in.data() + from, '<', in.size() - from);
        if (hit == nullptr) return std::string_view::npos;
        const size_t at = static_cast<size_t>(static_cast<const char*>(hit) - in.data());
        if (matches_ignoring_case(in, at, word)) return at;
        from = at + 1;
    }
    return std::string_view::npos;
}

// End (one past) of the raw-text element whose open tag name is `name`
// ("script" or "style") starting at `at`, or 0 if `at` does not open one.
size_t raw_text_element_end(std::string_view in, size_t at, std::string_view name) {
    if (!matches_ignoring_case(in, at + 1, name)) return 0;
    const size_t after_name = at + 1 + name.size();
    if (after_name >= in.size()) return 0;  // not followed by anything: rule 3 applies
    const char next = in[after_name];
    if (!is_html_space(next) && next != '>' && next != '/') return 0;
    std::string closing = "</";
    closing += name;
    const size_t close = find_ignoring_case(in, after_name, closing);
    if (close == std::string_view::npos) return in.size();
    const size_t gt = in.find('>', close + closing.size());
    return gt == std::string_view::npos ? in.size() : gt + 1;
}

// End (one past) of the markup construct starting with '<' at `at`, or 0 if
// that '<' is ordinary text.
size_t markup_end(std::string_view in, size_t at) {
    if (at + 1 >= in.size()) return 0;
    const char next = in[at + 1];
    // The rules are tried in order; the byte after '<' rules most out at once.
    if (next == '!' && in.compare(at, 4, "<!--") == 0) {
        const size_t close = in.find("-->", at + 4);
        return close == std::string_view::npos ? in.size() : close + 3;
    }
    if (next == 's' || next == 'S') {
        if (size_t end = raw_text_element_end(in, at, "script")) return end;
        if (size_t end = raw_text_element_end(in, at, "style")) return end;
    }
    if (is_ascii_letter(next) || next == '/' || next == '!' || next == '?') {
        const size_t gt = in.find('>', at + 2);
        return gt == std::string_view::npos ? in.size() : gt + 1;
    }
    return 0;
}

// End (one past) of the character reference starting with '&' at `at`, or 0.
size_t reference_end(std::string_view in, size_t at) {
    size_t i = at + 1;
    // Read at most one byte more than allowed, to tell 31 from 32.
    const size_t limit = std::min(in.size(), at + 1 + kMaxReferenceBytes + 1);
    while (i < limit && is_reference_byte(in[i])) ++i;
    const size_t length = i - (at + 1);
    if (length == 0 || length > kMaxReferenceBytes) return 0;
    if (i >= in.size() || in[i] != ';') return 0;
    return i + 1;
}

const char* find_markup_start(const char* from, const char* end) {
    // Two memchr calls beat a byte loop on text where markup is sparse.
    const void* lt = std::memchr(from, '<', static_cast<size_t>(end - from));
    const char* lt_end = lt ? static_cast<const char*>(lt) : end;
    const void* amp = std::memchr(from, '&', static_cast<size_t>(lt_end - from));
    return amp ? static_cast<const char*>(amp) : lt_end;
}

}  // namespace

size_t html_construct_end(std::string_view in, size_t at) {
    return in[at] == '<' ? markup_end(in, at) : reference_end(in, at);
}

void strip_html(std::string_view in, std::string& out) {
    out.reserve(out.size() + in.size());
    const char* const begin = in.data();
    const char* const end = begin + in.size();
    size_t copied_up_to = 0;  // bytes of `in` before this are in `out` or removed
    size_t scan = 0;
    while (scan < in.size()) {
        const size_t at = static_cast<size_t>(find_markup_start(begin + scan, end) - begin);
        if (at >= in.size()) break;
        const size_t construct_end = html_construct_end(in, at);
        if (construct_end == 0) {  // ordinary text
            scan = at + 1;
            continue;
        }
        out.append(in.data() + copied_up_to, at - copied_up_to);
        out.push_back(' ');
        copied_up_to = scan = construct_end;
    }
    out.append(in.data() + copied_up_to, in.size() - copied_up_to);
}

}  // namespace invidx
