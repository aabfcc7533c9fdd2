// The Porter stemmer of CONTENT.md §6, written so that host and device code run
// one implementation: no allocation, no exceptions, no recursion, no C++
// runtime, every function INVIDX_HOST_DEVICE. It computes what Snowball's
// `porter` algorithm (algorithms/porter.sbl) computes in libstemmer's UTF-8
// mode, byte for byte, for any input bytes; tests/analysis/porter_test.cpp
// checks that against libstemmer itself.
//
// Where Snowball's porter differs from the textbook (Porter 1980, and his C
// reference implementation):
// - 'y' is a consonant at the start of a word and after a vowel: it is
//   marked 'Y' before the steps, and every 'Y' is turned back to 'y' at the
//   end (also a 'Y' that was in the input, once some 'y' was marked).
// - "measure" conditions are regions: R1 starts after the first non-vowel
//   that follows a vowel, R2 after the next such non-vowel; a suffix is in R1
//   when it starts at or after R1. Vowels are a, e, i, o, u, y (the marked 'Y'
//   is not one).
// - Words of any length are stemmed ("as" becomes "a"), where the C reference
//   leaves words of one or two letters alone.
// - Among a step's suffixes the longest one that ends the word is taken, and
//   if its condition fails the step does nothing (no shorter suffix tried).
// - Step 2 has 'abli' -> 'able' (the published 1980 rule), not 'bli' -> 'ble'
//   or 'logi' -> 'log' (later additions of the C reference).
// - The short syllable (*o) is non-vowel, vowel, non-vowel other than w, x
//   and 'Y', and all three characters must be present.
//
// Characters: libstemmer walks UTF-8 input by characters, not bytes, when it
// looks for vowels and short syllables. Any non-ASCII character is a
// non-vowel; suffixes and region boundaries are byte positions. Its decoding
// is lenient (an ill-formed sequence is read the way its bit patterns say,
// continuation bits unchecked), and walking forward ("gopast") reads a
// character's width from its lead byte while stepping ("goto", "next")
// skips continuation bytes: both are reproduced below, so that even bytes
// the tokenizer never produces stem as libstemmer stems them.
#pragma once

#include <cstdint>

#include "invidx/host_device.hpp"

namespace invidx {

namespace porter_detail {

// A vowel of grouping `v` ('aeiouy'), given a decoded character.
INVIDX_HOST_DEVICE inline bool is_vowel(uint32_t character) {
    return character == 'a' || character == 'e' || character == 'i' || character == 'o' || character == 'u' ||
           character == 'y';
}

// Grouping `v_WXY`: the vowels, 'w', 'x' and the marked consonant 'Y'.
INVIDX_HOST_DEVICE inline bool is_vowel_wxy(uint32_t character) {
    return is_vowel(character) || character == 'w' || character == 'x' || character == 'Y';
}

// Reads the character starting at word[at] (at < end) as libstemmer's UTF-8
// runtime does: the lead byte says how many bytes follow (as many as there
// are, up to three), whatever they are. Returns its width.
INVIDX_HOST_DEVICE inline uint32_t read_forward(const unsigned char* word, uint32_t at, uint32_t end,
                                                uint32_t& character) {
    const uint32_t b0 = word[at];
    if (b0 < 0xC0 || at + 1 == end) {
        character = b0;
        return 1;
    }
    const uint32_t b1 = word[at + 1] & 0x3F;
    if (b0 < 0xE0 || at + 2 == end) {
        character = (b0 & 0x1F) << 6 | b1;
        return 2;
    }
    const uint32_t b2 = word[at + 2] & 0x3F;
    if (b0 < 0xF0 || at + 3 == end) {
        character = (b0 & 0x0F) << 12 | b1 << 6 | b2;
        return 3;
    }
    character = (b0 & 0x07) << 18 | b1 << 12 | b2 << 6 | (word[at + 3] & 0x3F);
    return 4;
}

// Reads the character ending at word[at - 1] (at > 0) as libstemmer does
// backwards: an ASCII byte is a character; otherwise bytes are taken back
// until a lead byte for the width reached so far, or the word's start.
INVIDX_HOST_DEVICE inline uint32_t read_backward(const unsigned char* word, uint32_t at, uint32_t& character) {
    uint32_t b = word[at - 1];
    if (b < 0x80 || at == 1) {
        character = b;
        return 1;
    }
    uint32_t low_bits = b & 0x3F;
    b = word[at - 2];
    if (b >= 0xC0 || at == 2) {
        character = (b & 0x1F) << 6 | low_bits;
        return 2;
    }
    low_bits |= (b & 0x3F) << 6;
    b = word[at - 3];
    if (b >= 0xE0 || at == 3) {
        character = (b & 0x0F) << 12 | low_bits;
        return 3;
    }
    character = (word[at - 4] & 0x07) << 18 | (b & 0x3F) << 12 | low_bits;
    return 4;
}

// The position of the character after the one at word[at] when stepping
// (Snowball's `goto` and `next`): a byte from 0xC0 up takes the continuation
// bytes after it along, any other byte is a character of its own.
INVIDX_HOST_DEVICE inline uint32_t step_forward(const unsigned char* word, uint32_t at, uint32_t end) {
    if (word[at++] >= 0xC0) {
        while (at < end && word[at] >= 0x80 && word[at] < 0xC0) ++at;
    }
    return at;
}

// `gopast v` (want_vowel) or `gopast non-v` from `at`: the position after the
// first such character, or `end` + 1 when there is none.
INVIDX_HOST_DEVICE inline uint32_t go_past(const unsigned char* word, uint32_t at, uint32_t end, bool want_vowel) {
    while (at < end) {
        uint32_t character = 0;
        at += read_forward(word, at, end, character);
        if (is_vowel(character) == want_vowel) return at;
    }
    return end + 1;
}

// Backwards `gopast v` from `at`: is there a vowel before it?
INVIDX_HOST_DEVICE inline bool vowel_before(const unsigned char* word, uint32_t at) {
    while (at > 0) {
        uint32_t character = 0;
        at -= read_backward(word, at, character);
        if (is_vowel(character)) return true;
    }
    return false;
}

// `shortv` ending at `at`: non-vowel, vowel, then a non-vowel that is not
// w, x or 'Y', all three present.
INVIDX_HOST_DEVICE inline bool short_syllable_before(const unsigned char* word, uint32_t at) {
    uint32_t character = 0;
    if (at == 0) return false;
    at -= read_backward(word, at, character);
    if (is_vowel_wxy(character) || at == 0) return false;
    at -= read_backward(word, at, character);
    if (!is_vowel(character) || at == 0) return false;
    read_backward(word, at, character);
    return !is_vowel(character);
}

INVIDX_HOST_DEVICE inline bool ends_with(const unsigned char* word, uint32_t length, const char* suffix,
                                         uint32_t suffix_length) {
    if (length < suffix_length) return false;
    const unsigned char* tail = word + (length - suffix_length);
    for (uint32_t i = 0; i < suffix_length; ++i) {
        if (tail[i] != static_cast<unsigned char>(suffix[i])) return false;
    }
    return true;
}

// A step's longest suffix that ends the word, and what replaces it.
struct SuffixRule {
    bool found = false;
    uint32_t start = 0;               // where the suffix starts
    const char* replacement = "";
    uint32_t replacement_length = 0;
};

// Tries `suffix` unless a longer one matched already: callers list each
// step's suffixes longest first, as Snowball's `among` takes the longest.
INVIDX_HOST_DEVICE inline void try_suffix(SuffixRule& rule, const unsigned char* word, uint32_t length,
                                          const char* suffix, uint32_t suffix_length, const char* replacement,
                                          uint32_t replacement_length) {
    if (rule.found || !ends_with(word, length, suffix, suffix_length)) return;
    rule.found = true;
    rule.start = length - suffix_length;
    rule.replacement = replacement;
    rule.replacement_length = replacement_length;
}

// Replaces the rule's suffix; returns the new length.
INVIDX_HOST_DEVICE inline uint32_t apply(const SuffixRule& rule, unsigned char* word) {
    for (uint32_t i = 0; i < rule.replacement_length; ++i) {
        word[rule.start + i] = static_cast<unsigned char>(rule.replacement[i]);
    }
    return rule.start + rule.replacement_length;
}

INVIDX_HOST_DEVICE inline SuffixRule step2_rule(const unsigned char* word, uint32_t length) {
    SuffixRule rule;
    if (length == 0) return rule;
    switch (word[length - 1]) {
        case 'l':
            try_suffix(rule, word, length, "ational", 7, "ate", 3);
            try_suffix(rule, word, length, "tional", 6, "tion", 4);
            break;
        case 'i':
            try_suffix(rule, word, length, "biliti", 6, "ble", 3);
            try_suffix(rule, word, length, "entli", 5, "ent", 3);
            try_suffix(rule, word, length, "ousli", 5, "ous", 3);
            try_suffix(rule, word, length, "aliti", 5, "al", 2);
            try_suffix(rule, word, length, "iviti", 5, "ive", 3);
            try_suffix(rule, word, length, "enci", 4, "ence", 4);
            try_suffix(rule, word, length, "anci", 4, "ance", 4);
            try_suffix(rule, word, length, "abli", 4, "able", 4);
            try_suffix(rule, word, length, "alli", 4, "al", 2);
            try_suffix(rule, word, length, "eli", 3, "e", 1);
            break;
        case 'r':
            try_suffix(rule, word, length, "izer", 4, "ize", 3);
            try_suffix(rule, word, length, "ator", 4, "ate", 3);
            break;
        case 'n':
            try_suffix(rule, word, length, "ization", 7, "ize", 3);
            try_suffix(rule, word, length, "ation", 5, "ate", 3);
            break;
        case 'm':
            try_suffix(rule, word, length, "alism", 5, "al", 2);
            break;
        case 's':
            try_suffix(rule, word, length, "fulness", 7, "ful", 3);
            try_suffix(rule, word, length, "ousness", 7, "ous", 3);
            try_suffix(rule, word, length, "iveness", 7, "ive", 3);
            break;
        default:
            break;
    }
    return rule;
}

INVIDX_HOST_DEVICE inline SuffixRule step3_rule(const unsigned char* word, uint32_t length) {
    SuffixRule rule;
    if (length == 0) return rule;
    switch (word[length - 1]) {
        case 'e':
            try_suffix(rule, word, length, "alize", 5, "al", 2);
            try_suffix(rule, word, length, "icate", 5, "ic", 2);
            try_suffix(rule, word, length, "ative", 5, "", 0);
            break;
        case 'i':
            try_suffix(rule, word, length, "iciti", 5, "ic", 2);
            break;
        case 'l':
            try_suffix(rule, word, length, "ical", 4, "ic", 2);
            try_suffix(rule, word, length, "ful", 3, "", 0);
            break;
        case 's':
            try_suffix(rule, word, length, "ness", 4, "", 0);
            break;
        default:
            break;
    }
    return rule;
}

// Step 4 deletes its suffix; 'ion' only after 's' or 't' (checked by the caller).
INVIDX_HOST_DEVICE inline SuffixRule step4_rule(const unsigned char* word, uint32_t length) {
    SuffixRule rule;
    if (length == 0) return rule;
    switch (word[length - 1]) {
        case 'l':
            try_suffix(rule, word, length, "al", 2, "", 0);
            break;
        case 'e':
            try_suffix(rule, word, length, "ance", 4, "", 0);
            try_suffix(rule, word, length, "ence", 4, "", 0);
            try_suffix(rule, word, length, "able", 4, "", 0);
            try_suffix(rule, word, length, "ible", 4, "", 0);
            try_suffix(rule, word, length, "ate", 3, "", 0);
            try_suffix(rule, word, length, "ive", 3, "", 0);
            try_suffix(rule, word, length, "ize", 3, "", 0);
            break;
        case 'r':
            try_suffix(rule, word, length, "er", 2, "", 0);
            break;
        case 'c':
            try_suffix(rule, word, length, "ic", 2, "", 0);
            break;
        case 't':
            try_suffix(rule, word, length, "ement", 5, "", 0);
            try_suffix(rule, word, length, "ment", 4, "", 0);
            try_suffix(rule, word, length, "ant", 3, "", 0);
            try_suffix(rule, word, length, "ent", 3, "", 0);
            break;
        case 'u':
            try_suffix(rule, word, length, "ou", 2, "", 0);
            break;
        case 'm':
            try_suffix(rule, word, length, "ism", 3, "", 0);
            break;
        case 'i':
            try_suffix(rule, word, length, "iti", 3, "", 0);
            break;
        case 's':
            try_suffix(rule, word, length, "ous", 3, "", 0);
            break;
        case 'n':
            try_suffix(rule, word, length, "ion", 3, "", 0);
            break;
        default:
            break;
    }
    return rule;
}

// Step 1b, after 'ed' or 'ing' went: the endings that get an 'e' back or
// lose a doubled consonant.
INVIDX_HOST_DEVICE inline bool ends_at_bl_iz(const unsigned char* word, uint32_t length) {
    return ends_with(word, length, "at", 2) || ends_with(word, length, "bl", 2) || ends_with(word, length, "iz", 2);
}

INVIDX_HOST_DEVICE inline bool ends_in_undoubled_consonant_pair(const unsigned char* word, uint32_t length) {
    if (length < 2 || word[length - 1] != word[length - 2]) return false;
    switch (word[length - 1]) {
        case 'b': case 'd': case 'f': case 'g': case 'm': case 'n': case 'p': case 'r': case 't':
            return true;
        default:
            return false;  // Snowball's porter leaves double c, h, j, k, q, v, w, x (and l, s, z) alone
    }
}

}  // namespace porter_detail

// Stems `word[0, length)` in place and returns the stem's length, which is
// never more than `length`, and never 0 unless `length` is: where Porter
// would leave nothing (a lone "s") the word is its own term (CONTENT.md §7).
INVIDX_HOST_DEVICE inline uint32_t porter_stem_in_place(unsigned char* word, uint32_t length) {
    using namespace porter_detail;
    uint32_t n = length;

    // Consonant 'y' becomes 'Y': at the start, and after a vowel, scanning
    // left to right so that a marked 'Y' is no vowel for the 'y' after it.
    bool y_marked = false;
    if (n > 0 && word[0] == 'y') {
        word[0] = 'Y';
        y_marked = true;
    }
    for (uint32_t at = 0; at < n; at = step_forward(word, at, n)) {
        uint32_t character = 0;
        const uint32_t next = at + read_forward(word, at, n, character);
        if (is_vowel(character) && next < n && word[next] == 'y') {
            word[next] = 'Y';
            y_marked = true;
        }
    }

    // Regions R1 and R2 as byte offsets (the word's length when empty).
    uint32_t p1 = n;
    uint32_t p2 = n;
    uint32_t at = go_past(word, 0, n, true);
    if (at <= n) at = go_past(word, at, n, false);
    if (at <= n) {
        p1 = at;
        at = go_past(word, at, n, true);
        if (at <= n) at = go_past(word, at, n, false);
        if (at <= n) p2 = at;
    }

    // Step 1a: plurals.
    if (ends_with(word, n, "sses", 4) || ends_with(word, n, "ies", 3)) {
        n -= 2;  // 'sses' -> 'ss', 'ies' -> 'i'
    } else if (ends_with(word, n, "s", 1) && !ends_with(word, n, "ss", 2)) {
        n -= 1;
    }
    // CONTENT.md §7: a term is never empty; a word stemmed to nothing is kept
    // whole. Only a lone "s" gets here (every later step keeps a vowel or a
    // region's start), and nothing has rewritten its byte.
    if (n == 0) return length;

    // Step 1b: 'eed', 'ed', 'ing'.
    if (ends_with(word, n, "eed", 3)) {
        if (p1 <= n - 3) n -= 1;  // 'eed' -> 'ee' in R1
    } else {
        uint32_t suffix = 0;
        if (ends_with(word, n, "ed", 2)) suffix = 2;
        if (ends_with(word, n, "ing", 3)) suffix = 3;
        if (suffix != 0 && vowel_before(word, n - suffix)) {
            n -= suffix;
            if (ends_at_bl_iz(word, n)) {
                word[n++] = 'e';
            } else if (ends_in_undoubled_consonant_pair(word, n)) {
                n -= 1;
            } else if (n == p1 && short_syllable_before(word, n)) {
                word[n++] = 'e';
            }
        }
    }

    // Step 1c: 'y' (or 'Y') after a vowel somewhere before it becomes 'i'.
    if (n > 0 && (word[n - 1] == 'y' || word[n - 1] == 'Y') && vowel_before(word, n - 1)) word[n - 1] = 'i';

    // Steps 2 and 3: double suffixes to single ones, in R1.
    SuffixRule rule = step2_rule(word, n);
    if (rule.found && p1 <= rule.start) n = apply(rule, word);
    rule = step3_rule(word, n);
    if (rule.found && p1 <= rule.start) n = apply(rule, word);

    // Step 4: suffixes deleted in R2; 'ion' only after 's' or 't'.
    rule = step4_rule(word, n);
    if (rule.found && p2 <= rule.start) {
        const bool ion = rule.start + 3 == n && ends_with(word, n, "ion", 3);
        if (!ion || (rule.start > 0 && (word[rule.start - 1] == 's' || word[rule.start - 1] == 't'))) {
            n = apply(rule, word);
        }
    }

    // Step 5a: a final 'e' in R2, or in R1 after no short syllable.
    if (ends_with(word, n, "e", 1)) {
        const uint32_t e = n - 1;
        if (p2 <= e || (p1 <= e && !short_syllable_before(word, e))) n = e;
    }

    // Step 5b: 'll' in R2 loses an 'l'.
    if (ends_with(word, n, "ll", 2) && p2 <= n - 1) n -= 1;

    if (y_marked) {
        for (uint32_t i = 0; i < n; ++i) {
            if (word[i] == 'Y') word[i] = 'y';
        }
    }
    return n;
}

// Stems `in[0, length)` into `out` (room for `length` bytes; `out` may be
// `in`) and returns the stem's length.
INVIDX_HOST_DEVICE inline uint32_t porter_stem(const unsigned char* in, uint32_t length, unsigned char* out) {
    if (out != in) {
        for (uint32_t i = 0; i < length; ++i) out[i] = in[i];
    }
    return porter_stem_in_place(out, length);
}

}  // namespace invidx
