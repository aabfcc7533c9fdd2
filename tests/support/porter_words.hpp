// Strings that exercise a Porter stemmer where it can go wrong: English-like
// words built from the suffixes the steps look for, 'y' anywhere (the
// consonant marking), digits, UTF-8 characters of 2, 3 and 4 bytes inside and
// at the ends (libstemmer walks characters, not bytes), words up to the
// tokenizer's 255 bytes, and a share of arbitrary bytes (ill-formed UTF-8,
// upper case) that the tokenizer never makes but the stemmer must still get
// right. The same seed gives the same strings, so host and device tests see
// the same ones.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace invidx::test {

// Words back to back: word i is bytes [offsets[i], offsets[i + 1]).
struct WordList {
    std::string bytes;
    std::vector<uint32_t> offsets{0};

    size_t size() const { return offsets.size() - 1; }
    std::string_view operator[](size_t i) const {
        return std::string_view(bytes).substr(offsets[i], offsets[i + 1] - offsets[i]);
    }
    void add(std::string_view word) {
        bytes += word;
        offsets.push_back(static_cast<uint32_t>(bytes.size()));
    }
};

class PorterWordGenerator {
public:
    explicit PorterWordGenerator(uint64_t seed) : random_(seed) {}

    std::string next() {
        const unsigned mode = below(100);
        std::string word;
        if (mode < 55) {
            word = english_like();
        } else if (mode < 72) {
            word = letters(1 + below(30));
        } else if (mode < 85) {
            word = mixed(1 + below(14));
        } else if (mode < 92) {
            word = long_word();
        } else {
            word = arbitrary_bytes(below(24));
        }
        return word;
    }

private:
    static constexpr const char* kSuffixes[] = {
        "ing", "ed", "eed", "ational", "tional", "enci", "anci", "izer", "abli", "alli", "entli", "eli", "ousli",
        "ization", "ation", "ator", "alism", "iveness", "fulness", "ousness", "aliti", "iviti", "biliti", "icate",
        "ative", "alize", "iciti", "ical", "ful", "ness", "al", "ance", "ence", "er", "ic", "able", "ible", "ant",
        "ement", "ment", "ent", "ion", "sion", "tion", "ou", "ism", "ate", "iti", "ous", "ive", "ize", "e", "ll",
        "y", "ies", "sses", "ss", "s", "at", "bl", "iz", "bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt",
        "cc", "zz", "ly", "logi", "bli", "yed", "ying", "eys", "ey"};
    static constexpr const char* kVowels = "aeiouy";
    static constexpr const char* kConsonants = "bcdfghjklmnpqrstvwxzy";
    // Token characters of 2, 3 and 4 bytes (CONTENT.md §4), and a separator code
    // point and an overlong form only the arbitrary strings may hold.
    static constexpr const char* kMultibyte[] = {"\xC3\xA9", "\xC3\x9F", "\xC3\xB1", "\xD1\x91", "\xC4\xB1",
                                                 "\xE6\x9D\xB1", "\xE2\x82\xAC", "\xEA\xB0\x80", "\xEF\xBD\x81",
                                                 "\xF0\x9F\x98\x80", "\xF0\x9D\x94\xB8", "\xF4\x8F\xBF\xBF"};

    unsigned below(unsigned n) { return static_cast<unsigned>(random_() % n); }
    bool chance(unsigned percent) { return below(100) < percent; }

    template <size_t N>
    const char* pick(const char* const (&list)[N]) {
        return list[below(N)];
    }

    char letter() { return chance(40) ? kVowels[below(6)] : kConsonants[below(21)]; }

    std::string letters(unsigned n) {
        std::string word;
        while (word.size() < n) {
            word += letter();
            if (chance(10)) word += word.back();  // doubled letters: ll, ss, tt...
        }
        return word;
    }

    // A stem of consonant-vowel runs, one to three suffixes, then 'y',
    // digits and multibyte characters sprinkled in.
    std::string english_like() {
        std::string word;
        const unsigned syllables = below(5);
        for (unsigned i = 0; i < syllables; ++i) {
            if (chance(80)) word += kConsonants[below(21)];
            if (chance(30)) word += kConsonants[below(21)];
            word += kVowels[below(6)];
            if (chance(50)) word += kConsonants[below(21)];
        }
        const unsigned suffixes = 1 + below(3);
        for (unsigned i = 0; i < suffixes; ++i) word += pick(kSuffixes);
        if (word.empty()) word = "y";
        const unsigned ys = chance(35) ? 1 + below(3) : 0;
        for (unsigned i = 0; i < ys; ++i) word[below(static_cast<unsigned>(word.size()))] = 'y';
        if (chance(8)) word.insert(below(static_cast<unsigned>(word.size()) + 1), 1, static_cast<char>('0' + below(10)));
        if (chance(15)) word.insert(below(static_cast<unsigned>(word.size()) + 1), pick(kMultibyte));
        if (chance(5)) word.insert(0, pick(kMultibyte));
        if (chance(5)) word += pick(kMultibyte);
        return word;
    }

    // Letters, digits and multibyte characters in any order.
    std::string mixed(unsigned units) {
        std::string word;
        for (unsigned i = 0; i < units; ++i) {
            const unsigned kind = below(10);
            if (kind < 6) {
                word += letter();
            } else if (kind < 7) {
                word += static_cast<char>('0' + below(10));
            } else if (kind < 9) {
                word += pick(kMultibyte);
            } else {
                word += pick(kSuffixes);
            }
        }
        return word;
    }

    // Up to the tokenizer's 255 bytes, ending in a suffix most of the time.
    std::string long_word() {
        const unsigned target = 30 + below(226);
        std::string word;
        while (word.size() < target) {
            const unsigned kind = below(10);
            if (kind < 6) {
                word += letter();
            } else if (kind < 8) {
                word += pick(kSuffixes);
            } else {
                word += pick(kMultibyte);
            }
        }
        while (word.size() > 255) word.pop_back();  // may cut a character: ill-formed ends are fine too
        if (chance(70)) {
            const std::string suffix = pick(kSuffixes);
            word.resize(std::min(word.size(), 255 - suffix.size()));
            word += suffix;
        }
        return word;
    }

    // Any bytes, weighted towards the ones the stemmer treats specially.
    std::string arbitrary_bytes(unsigned n) {
        static constexpr unsigned char kSpecial[] = {'y', 'Y', 'e', 's', 'l', 'a', 'i', 0x80, 0xBF, 0xC0,
                                                     0xC1, 0xC3, 0xE0, 0xED, 0xF0, 0xF4, 0xF8, 0xFF, 0x21, 0x25};
        std::string word;
        for (unsigned i = 0; i < n; ++i) {
            const unsigned kind = below(10);
            if (kind < 4) {
                word += static_cast<char>(random_() & 0xFF);
            } else if (kind < 7) {
                word += static_cast<char>(kSpecial[below(sizeof kSpecial)]);
            } else {
                word += letter();
            }
        }
        if (chance(50)) word += pick(kSuffixes);
        return word;
    }

    std::mt19937_64 random_;
};

// `count` generated words (PorterWordGenerator), the same for the same seed.
inline WordList porter_test_words(size_t count, uint64_t seed = 20240611) {
    PorterWordGenerator generator(seed);
    WordList words;
    words.bytes.reserve(count * 16);
    words.offsets.reserve(count + 1);
    for (size_t i = 0; i < count; ++i) words.add(generator.next());
    return words;
}

}  // namespace invidx::test
