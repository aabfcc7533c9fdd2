// The construct rules of CONTENT.md §3 over raw bytes, one implementation for host
// and device: strip_html (html.cpp), the vector token scan and GPU parsing
// all decide here where a comment, raw-text element, tag or character
// reference that starts at a '<' or '&' ends. No C++ runtime beyond memchr on
// the host; every function is INVIDX_HOST_DEVICE. `Size` is the index type:
// size_t for host strings, uint32_t for device documents (shorter than 4 GiB).
// Index arithmetic is written as `length - at` comparisons so that it cannot
// wrap for any `at < length`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "invidx/host_device.hpp"

namespace invidx::html_rules {

inline constexpr uint32_t kMaxReferenceBytes = 31;  // CONTENT.md §3

INVIDX_HOST_DEVICE constexpr bool is_ascii_letter(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

INVIDX_HOST_DEVICE constexpr bool is_reference_byte(unsigned char c) {
    return is_ascii_letter(c) || (c >= '0' && c <= '9') || c == '#';
}

INVIDX_HOST_DEVICE constexpr bool is_html_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

INVIDX_HOST_DEVICE constexpr unsigned char ascii_lower(unsigned char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<unsigned char>(c + ('a' - 'A')) : c;
}

// Position of the first `byte` in [from, length), or `length`. The host asks
// memchr (markup is sparse in text, and comments and scripts can be long).
template <class Size>
INVIDX_HOST_DEVICE Size find_byte(const unsigned char* text, Size length, Size from, unsigned char byte) {
    if (from >= length) return length;
#if defined(__CUDA_ARCH__)
    while (from < length && text[from] != byte) ++from;
    return from;
#else
    const void* hit = std::memchr(text + from, byte, static_cast<size_t>(length - from));
    return hit == nullptr ? length : static_cast<Size>(static_cast<const unsigned char*>(hit) - text);
#endif
}

// Whether `text` holds the lowercase ASCII `word` (of `word_length` bytes)
// at `at` (at <= length), ignoring ASCII case.
template <class Size>
INVIDX_HOST_DEVICE bool matches_ignoring_case(const unsigned char* text, Size length, Size at, const char* word,
                                              uint32_t word_length) {
    if (length - at < word_length) return false;
    for (uint32_t i = 0; i < word_length; ++i) {
        if (ascii_lower(text[at + i]) != static_cast<unsigned char>(word[i])) return false;
    }
    return true;
}

// Position of the first case-insensitive occurrence of lowercase `word`
// (which starts with '<') at or after `from`, or `length`.
template <class Size>
INVIDX_HOST_DEVICE Size find_ignoring_case(const unsigned char* text, Size length, Size from, const char* word,
                                           uint32_t word_length) {
    while (from < length) {
        const Size at = find_byte(text, length, from, static_cast<unsigned char>('<'));
        if (at >= length) return length;
        if (matches_ignoring_case(text, length, at, word, word_length)) return at;
        from = at + 1;
    }
    return length;
}

// Position of the first "-->" at or after `from`, or `length`.
template <class Size>
INVIDX_HOST_DEVICE Size find_comment_close(const unsigned char* text, Size length, Size from) {
    while (from < length) {
        const Size at = find_byte(text, length, from, static_cast<unsigned char>('-'));
        if (length - at < 3) return length;  // also when nothing was found
        if (text[at + 1] == '-' && text[at + 2] == '>') return at;
        from = at + 1;
    }
    return length;
}

// The three searches the construct rules make, one after another in one
// thread: what the host and a GPU thread use. (A GPU warp searching
// together passes its own, with the same answers: devices/cuda/analysis/analysis_kernels.cuh.)
struct ScalarSearch {
    template <class Size>
    INVIDX_HOST_DEVICE Size byte(const unsigned char* text, Size length, Size from, unsigned char value) const {
        return find_byte(text, length, from, value);
    }
    template <class Size>
    INVIDX_HOST_DEVICE Size comment_close(const unsigned char* text, Size length, Size from) const {
        return find_comment_close(text, length, from);
    }
    template <class Size>
    INVIDX_HOST_DEVICE Size word(const unsigned char* text, Size length, Size from, const char* word,
                                 uint32_t word_length) const {
        return find_ignoring_case(text, length, from, word, word_length);
    }
};

// The same three searches as "the first position at or after `from` where
// a predicate holds" (or `length`), for searches that test many positions
// at once: a GPU warp tests 32 a step (devices/cuda/analysis/analysis_kernels.cuh). `First` is
// first(from, length, predicate) -> position; a predicate is
// predicate(length, p) -> bool. Each predicate holds at p exactly where
// the scalar search would stop.
struct ByteAt {
    const unsigned char* text;
    unsigned char value;
    template <class Size>
    INVIDX_HOST_DEVICE bool operator()(Size, Size p) const { return text[p] == value; }
};

struct CommentCloseAt {
    const unsigned char* text;
    template <class Size>
    INVIDX_HOST_DEVICE bool operator()(Size length, Size p) const {
        return length - p >= 3 && text[p] == '-' && text[p + 1] == '-' && text[p + 2] == '>';
    }
};

struct WordAt {
    const unsigned char* text;
    const char* word;
    uint32_t word_length;
    template <class Size>
    INVIDX_HOST_DEVICE bool operator()(Size length, Size p) const {
        return matches_ignoring_case(text, length, p, word, word_length);
    }
};

template <class First>
struct PredicateSearch {
    First first;
    template <class Size>
    INVIDX_HOST_DEVICE Size byte(const unsigned char* text, Size length, Size from, unsigned char value) const {
        return first(from, length, ByteAt{text, value});
    }
    template <class Size>
    INVIDX_HOST_DEVICE Size comment_close(const unsigned char* text, Size length, Size from) const {
        return first(from, length, CommentCloseAt{text});
    }
    template <class Size>
    INVIDX_HOST_DEVICE Size word(const unsigned char* text, Size length, Size from, const char* word,
                                 uint32_t word_length) const {
        return first(from, length, WordAt{text, word, word_length});
    }
};

// End (one past) of the raw-text element whose open tag name is `name`
// ("script" or "style", with `closing` "</script" or "</style") starting at
// the '<' at `at`, or 0 if `at` does not open one (CONTENT.md §3).
template <class Size, class Search = ScalarSearch>
INVIDX_HOST_DEVICE Size raw_text_element_end(const unsigned char* text, Size length, Size at, const char* name,
                                             const char* closing, uint32_t name_length,
                                             const Search& search = Search{}) {
    if (!matches_ignoring_case(text, length, at + 1, name, name_length)) return 0;
    const Size after_name = at + 1 + name_length;
    if (after_name >= length) return 0;  // not followed by anything: the tag rule applies
    const unsigned char next = text[after_name];
    if (!is_html_space(next) && next != '>' && next != '/') return 0;
    const Size close = search.word(text, length, after_name, closing, name_length + 2);
    if (close >= length) return length;
    const Size gt = search.byte(text, length, static_cast<Size>(close + name_length + 2), static_cast<unsigned char>('>'));
    return gt >= length ? length : gt + 1;
}

// End (one past) of the markup construct starting with '<' at `at`, or 0 if
// that '<' is ordinary text (CONTENT.md §3). The rules are tried in order;
// the byte after '<' rules most out at once.
template <class Size, class Search = ScalarSearch>
INVIDX_HOST_DEVICE Size markup_end(const unsigned char* text, Size length, Size at, const Search& search = Search{}) {
    if (length - at < 2) return 0;
    const unsigned char next = text[at + 1];
    if (next == '!' && length - at >= 4 && text[at + 2] == '-' && text[at + 3] == '-') {
        const Size close = search.comment_close(text, length, static_cast<Size>(at + 4));
        return close >= length ? length : close + 3;
    }
    if (next == 's' || next == 'S') {
        if (const Size end = raw_text_element_end(text, length, at, "script", "</script", 6, search)) return end;
        if (const Size end = raw_text_element_end(text, length, at, "style", "</style", 5, search)) return end;
    }
    if (is_ascii_letter(next) || next == '/' || next == '!' || next == '?') {
        const Size gt = search.byte(text, length, static_cast<Size>(at + 2), static_cast<unsigned char>('>'));
        return gt >= length ? length : gt + 1;
    }
    return 0;
}

// End (one past) of the character reference starting with '&' at `at`, or 0
// (CONTENT.md §3).
template <class Size>
INVIDX_HOST_DEVICE Size reference_end(const unsigned char* text, Size length, Size at) {
    // Read at most one byte more than allowed, to tell 31 from 32.
    const Size limit = length - at > kMaxReferenceBytes + 1 ? at + 1 + kMaxReferenceBytes + 1 : length;
    Size i = at + 1;
    while (i < limit && is_reference_byte(text[i])) ++i;
    const Size reference_bytes = i - (at + 1);
    if (reference_bytes == 0 || reference_bytes > kMaxReferenceBytes) return 0;
    if (i >= length || text[i] != ';') return 0;
    return i + 1;
}

// End (one past) of the CONTENT.md §3 construct starting at `at` (at < length), or
// 0 when the byte there is ordinary text: every byte but '<' and '&' is, and
// so is a '<' or '&' that starts no construct. An unterminated construct
// runs to `length`.
template <class Size, class Search = ScalarSearch>
INVIDX_HOST_DEVICE Size construct_end(const unsigned char* text, Size length, Size at, const Search& search = Search{}) {
    if (text[at] == '<') return markup_end(text, length, at, search);
    if (text[at] == '&') return reference_end(text, length, at);
    return 0;
}

// Position of the first '<' or '&' in [from, length), or `length`: where the
// next construct may start.
template <class Size>
INVIDX_HOST_DEVICE Size find_markup_start(const unsigned char* text, Size length, Size from) {
    // Two searches beat a byte loop on the host, where markup is sparse.
    const Size lt = find_byte(text, length, from, static_cast<unsigned char>('<'));
    return find_byte(text, lt, from, static_cast<unsigned char>('&'));
}

}  // namespace invidx::html_rules
