// Our Porter stemmer (analysis/porter.hpp) against libstemmer's `porter`
// (analysis/stem.hpp), byte for byte: CONTENT.md §6 allows no other outcome.
// Both keep a word whose stem would be empty whole (CONTENT.md §7), so every
// comparison below is with libstemmer and that rule.
#include "analysis/porter.hpp"

#include <doctest/doctest.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "analysis/stem.hpp"
#include "analysis/tokenize.hpp"
#include "support/porter_words.hpp"

namespace {

using namespace invidx;

std::string ours(std::string_view word) {
    unsigned char stem[1024];
    REQUIRE(word.size() <= sizeof stem);
    const uint32_t n = porter_stem(reinterpret_cast<const unsigned char*>(word.data()),
                                   static_cast<uint32_t>(word.size()), stem);
    REQUIRE(n <= word.size());
    return std::string(reinterpret_cast<const char*>(stem), n);
}

std::string printable(std::string_view bytes) {
    std::string out;
    for (unsigned char c : bytes) {
        if (c >= 0x20 && c < 0x7F && c != '\\') {
            out += static_cast<char>(c);
        } else {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02X", c);
            out += escaped;
        }
    }
    return out;
}

// Compares every word; reports the first few differences by name and
// returns how many there were.
template <class Words>
size_t count_differences(const Words& words, size_t count, PorterStemmer& libstemmer) {
    size_t differences = 0;
    for (size_t i = 0; i < count; ++i) {
        const std::string_view word = words[i];
        const std::string expected(libstemmer.stem(word));
        const std::string actual = ours(word);
        if (actual != expected && ++differences <= 10) {
            FAIL_CHECK("'" << printable(word) << "': libstemmer '" << printable(expected) << "', ours '"
                           << printable(actual) << "'");
        }
    }
    return differences;
}

}  // namespace

TEST_CASE("porter_stem: known stems, where Snowball's porter departs from the textbook too") {
    PorterStemmer libstemmer;
    const std::pair<std::string_view, std::string_view> known[] = {
        {"caresses", "caress"}, {"ponies", "poni"}, {"ties", "ti"}, {"caress", "caress"}, {"cats", "cat"},
        {"feed", "feed"}, {"agreed", "agre"}, {"plastered", "plaster"}, {"bled", "bled"}, {"motoring", "motor"},
        {"sing", "sing"}, {"conflated", "conflat"}, {"troubled", "troubl"}, {"sized", "size"}, {"hopping", "hop"},
        {"tanned", "tan"}, {"falling", "fall"}, {"hissing", "hiss"}, {"fizzed", "fizz"}, {"failing", "fail"},
        {"filing", "file"}, {"happy", "happi"}, {"sky", "sky"}, {"relational", "relat"},
        {"generalizations", "gener"}, {"hoping", "hope"}, {"", ""}, {"42", "42"},
        // Words of one or two letters are stemmed too (the C reference skips them).
        {"as", "a"}, {"is", "i"}, {"us", "u"},
        // 'y' after a vowel is a consonant ('Y') and still becomes 'i' in step 1c.
        {"say", "sai"}, {"says", "sai"}, {"boys", "boi"}, {"ay", "ai"}, {"yes", "ye"}, {"yyy", "yyi"},
        {"syzygy", "syzygi"}, {"crying", "cry"}, {"by", "by"},
        // Non-ASCII characters are non-vowels, one character each: in
        // "baéed" R1 starts after the 'é', where 'ed' went, and b-a-é is a
        // short syllable, so an 'e' comes back (read byte by byte, R1 would
        // start inside the 'é' and the stem would be "baé").
        {"caf\xC3\xA9s", "caf\xC3\xA9"}, {"caf\xC3\xA9ing", "caf\xC3\xA9"}, {"\xC3\xA9ing", "\xC3\xA9ing"},
        {"ba\xC3\xA9" "ed", "ba\xC3\xA9" "e"}, {"na\xC3\xAFve", "na\xC3\xAFv"}};
    for (const auto& [word, stem] : known) {
        INFO("word '" << printable(word) << "'");
        CHECK(ours(word) == stem);
        CHECK(libstemmer.stem(word) == stem);  // the expectations are libstemmer's
    }
}

TEST_CASE("porter_stem: a word stemmed to nothing is its own term, as PorterStemmer gives it") {
    // Snowball's porter removes the 's' of a lone "s"; CONTENT.md §7 keeps it.
    PorterStemmer libstemmer;
    for (const std::string_view word : {"s", "ss", "sss", "as", "is", "es", "ys"}) {
        INFO("word '" << word << "'");
        CHECK(ours(word) == libstemmer.stem(word));
        CHECK(!ours(word).empty());
    }
    CHECK(ours("s") == "s");
    std::string word = "s";
    CHECK(porter_stem_in_place(reinterpret_cast<unsigned char*>(word.data()), 1) == 1);
    CHECK(word == "s");
}

TEST_CASE("porter_stem: in place, and never longer than the word") {
    std::string word = "generalizations";
    const uint32_t n = porter_stem_in_place(reinterpret_cast<unsigned char*>(word.data()),
                                            static_cast<uint32_t>(word.size()));
    CHECK(word.substr(0, n) == "gener");
    const test::WordList words = test::porter_test_words(20000, 7);
    for (size_t i = 0; i < words.size(); ++i) CHECK(ours(words[i]).size() <= words[i].size());
}

TEST_CASE("porter_stem equals libstemmer on every distinct token of the sample collection") {
    const std::string path = std::string(INVIDX_SOURCE_DIR) + "/sample/debian-docs.warc.gz";
    REQUIRE(std::filesystem::exists(path));
    gzFile file = gzopen(path.c_str(), "rb");
    REQUIRE(file != nullptr);
    std::string data;
    char buffer[1 << 16];
    for (int n; (n = gzread(file, buffer, sizeof buffer)) > 0;) data.append(buffer, static_cast<size_t>(n));
    gzclose(file);
    REQUIRE(data.size() > 1000000);

    // Every token of the whole file (WARC and HTTP headers and markup
    // included): a superset of the documents' tokens, since HTML removal only
    // adds separators.
    std::unordered_set<std::string> distinct;
    size_t non_ascii = 0;
    tokenize(data, [&](std::string_view token) {
        if (distinct.emplace(token).second) {
            for (unsigned char c : token) {
                if (c >= 0x80) {
                    ++non_ascii;
                    break;
                }
            }
        }
    });
    const std::vector<std::string> tokens(distinct.begin(), distinct.end());
    MESSAGE(tokens.size() << " distinct tokens, " << non_ascii << " with non-ASCII characters");
    REQUIRE(tokens.size() > 10000);
    CHECK(non_ascii > 0);
    PorterStemmer libstemmer;
    CHECK(count_differences(tokens, tokens.size(), libstemmer) == 0);
}

TEST_CASE("porter_stem equals libstemmer on the system word list when there is one") {
    // /usr/share/dict/words comes with Debian's wamerican: upper case and
    // apostrophes included, it is a run of odd tokens as well as English.
    std::ifstream in("/usr/share/dict/words");
    if (!in) {
        MESSAGE("no /usr/share/dict/words here: word list comparison skipped");
        return;
    }
    std::vector<std::string> words;
    for (std::string line; std::getline(in, line);) words.push_back(line);
    MESSAGE(words.size() << " words from /usr/share/dict/words");
    PorterStemmer libstemmer;
    CHECK(count_differences(words, words.size(), libstemmer) == 0);
}

TEST_CASE("porter_stem equals libstemmer on every short string over the letters that matter") {
    // All strings of up to 5 characters over vowels, 'y', 'Y', the consonants
    // the suffixes end in and a 2-byte letter: every step's boundary cases.
    static constexpr std::string_view kAlphabet[] = {"a", "e", "i", "y", "Y", "s", "d", "l", "t", "n", "g",
                                                     "\xC3\xA9"};
    constexpr size_t kLetters = std::size(kAlphabet);
    std::vector<std::string> words;
    std::vector<size_t> digits;
    for (size_t length = 0; length <= 5; ++length) {
        digits.assign(length, 0);
        while (true) {
            std::string word;
            for (size_t d : digits) word += kAlphabet[d];
            words.push_back(word);
            size_t position = 0;
            while (position < length && ++digits[position] == kLetters) digits[position++] = 0;
            if (position == length) break;
        }
    }
    CHECK(words.size() == 1 + 12 + 144 + 1728 + 20736 + 248832);
    PorterStemmer libstemmer;
    CHECK(count_differences(words, words.size(), libstemmer) == 0);
}

TEST_CASE("porter_stem equals libstemmer on a million generated strings") {
    const auto start = std::chrono::steady_clock::now();
    const test::WordList words = test::porter_test_words(1000000);
    size_t non_ascii = 0;
    size_t longest = 0;
    for (size_t i = 0; i < words.size(); ++i) {
        longest = std::max(longest, words[i].size());
        for (unsigned char c : words[i]) {
            if (c >= 0x80) {
                ++non_ascii;
                break;
            }
        }
    }
    CHECK(longest == kMaxTokenBytes);
    CHECK(non_ascii > 100000);
    PorterStemmer libstemmer;
    CHECK(count_differences(words, words.size(), libstemmer) == 0);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    MESSAGE(words.size() << " strings (" << non_ascii << " with non-ASCII bytes) compared in " << seconds << " s");
}
