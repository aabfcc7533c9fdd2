#include <doctest/doctest.h>

#include <map>
#include <string>

#include "invidx/error.hpp"
#include "lexicon/generated_dictionaries.hpp"
#include "lexicon/xbw_trie_builder.hpp"

using namespace invidx;
using namespace invidx::lexicon;

namespace {

uint64_t find(const XbwTrieView& trie, std::string_view term) {
    return trie.find(reinterpret_cast<const unsigned char*>(term.data()), static_cast<uint32_t>(term.size()));
}

// Every term at its byte-wise position (as std::map numbers them), no
// near miss found, and the longest term prefix of each string as a scan of
// its prefixes in the map says.
void check_against_map(const std::set<std::string>& terms, uint32_t seed) {
    const XbwTrie trie(testing::views_of(terms));
    const XbwTrieView view = trie.view();
    std::map<std::string, uint64_t> expected;
    for (const auto& term : terms) expected.emplace(term, expected.size());
    for (const auto& [term, index] : expected) REQUIRE(find(view, term) == index);
    const auto missing = testing::missing_strings(terms, seed);
    CHECK(missing.size() > terms.size());
    for (const auto& string : missing) REQUIRE(find(view, string) == kTermNotFound);
    auto check_prefix = [&](const std::string& string) {
        uint64_t best = kTermNotFound;
        uint32_t best_length = 0;
        for (size_t length = 0; length <= string.size(); ++length) {
            const auto it = expected.find(string.substr(0, length));
            if (it != expected.end()) {
                best = it->second;
                best_length = static_cast<uint32_t>(length);
            }
        }
        uint32_t matched = 99;
        REQUIRE(view.longest_prefix(reinterpret_cast<const unsigned char*>(string.data()), static_cast<uint32_t>(string.size()),
                                    matched) == best);
        REQUIRE(matched == best_length);
    };
    for (const auto& [term, index] : expected) check_prefix(term);
    for (const auto& string : missing) check_prefix(string);
}

}  // namespace

TEST_CASE("xbw trie: the paper's example keys, reversed, make a 9-node trie that finds its 5 keys") {
    // Wakatsuki et al. Fig. 1 / Table 1: aba, ba, bb, cb, cc (10 nodes
    // forwards); backwards aba, ab, bb, bc, cc: root, a, ab, aba, b, bb, bc, c, cc.
    const std::vector<std::string_view> keys = {"aba", "ba", "bb", "cb", "cc"};
    const XbwTrie trie(keys);
    CHECK(trie.node_count() == 9);
    for (uint64_t i = 0; i < keys.size(); ++i) CHECK(find(trie.view(), keys[i]) == i);
    for (const char* missing : {"", "a", "ab", "abab", "b", "c", "ca", "bc", "d"}) CHECK(find(trie.view(), missing) == kTermNotFound);
}

TEST_CASE("xbw trie: every term of generated dictionaries against std::map, near misses and longest prefixes") {
    for (const uint32_t seed : {1u, 2u, 3u}) {
        CAPTURE(seed);
        check_against_map(testing::generated_dictionary(seed, 3000, seed == 2), seed);
    }
    check_against_map(testing::generated_dictionary(4, 40000, true), 4);
}

TEST_CASE("xbw trie: empty, one-term and empty-term dictionaries") {
    check_against_map({}, 5);
    check_against_map({""}, 5);
    check_against_map({"x"}, 5);
    check_against_map({std::string(255, '\x80')}, 5);
}

TEST_CASE("xbw trie: terms out of byte-wise order or repeated are refused") {
    CHECK_THROWS_AS(XbwTrie(std::vector<std::string_view>{"b", "a"}), Error);
    CHECK_THROWS_AS(XbwTrie(std::vector<std::string_view>{"a", "a"}), Error);
    // Unsigned order: 0xc3 sorts after 'z'.
    CHECK_THROWS_AS(XbwTrie(std::vector<std::string_view>{"\xc3\xa9", "z"}), Error);
    CHECK_NOTHROW(XbwTrie(std::vector<std::string_view>{"z", "\xc3\xa9"}));
}

TEST_CASE("xbw trie: a term's index is its terminal node's rank, for terms that share suffixes and prefixes") {
    // The trie is built over the reversed terms: these share long suffixes,
    // end inside each other's paths (a term that is a suffix of another ends
    // at an internal node) and still number in forward byte-wise order.
    check_against_map({"ing", "sing", "ring", "bring", "string", "strings", "g", "ng", "a", "ab", "abing", "zing", "\xffing", "\xff"}, 9);
}

TEST_CASE("xbw trie: the wavelet matrix has ceil(log2 symbols) levels, symbols being the bytes that occur, frequent ones walking fewer") {
    struct Case {
        std::set<std::string> terms;
        uint32_t symbols;
        uint32_t levels;
    };
    std::set<std::string> every_byte;
    for (int byte = 0; byte < 256; ++byte) every_byte.insert(std::string(1, static_cast<char>(byte)) + "\x01");
    const std::vector<Case> cases = {
        {{"a", "aa", "aaa", "aaaaaaa"}, 1, 0},
        {{"ab", "b", "ba", "bbb"}, 2, 1},
        {{"abc", "b", "cd", "e", "ee"}, 5, 3},
        {every_byte, 256, 8},
    };
    for (const auto& [terms, symbols, levels] : cases) {
        CAPTURE(symbols);
        const XbwTrie trie(testing::views_of(terms));
        CHECK(trie.sections().symbol_count == symbols);
        CHECK(trie.sections().level_count == levels);
        check_against_map(terms, symbols);
    }
    // Huffman-shaped codes limited to those levels: a byte on most edges
    // walks fewer levels than a rare one, and every code fits.
    std::set<std::string> skewed;
    for (int k = 1; k < 200; ++k) skewed.insert(std::string(static_cast<size_t>(k % 40 + 1), 'e') + static_cast<char>('a' + k % 26));
    const XbwTrie skewed_trie(testing::views_of(skewed));
    const XbwTrieView skewed_view = skewed_trie.view();
    CHECK(skewed_trie.sections().level_count == 5);
    CHECK((skewed_view.code_of_byte[static_cast<unsigned char>('e')] & 15u) < 5);
    CHECK((skewed_view.code_of_byte[static_cast<unsigned char>('q')] & 15u) == 5);
    CHECK(skewed_view.code_of_byte[static_cast<unsigned char>('!')] == kNoCode);
    check_against_map(skewed, 10);
    // A byte that labels no edge is a miss at once, whatever node the walk is at.
    const XbwTrie trie(std::vector<std::string_view>{"a", "aa"});
    CHECK(find(trie.view(), "b") == kTermNotFound);
    CHECK(find(trie.view(), "ab") == kTermNotFound);
    CHECK(find(trie.view(), std::string_view("\0", 1)) == kTermNotFound);
}

TEST_CASE("xbw trie: bytes stay within the bits a node needs, with 16-bit counts a rank block") {
    const auto terms = testing::generated_dictionary(8, 20000, true);
    const XbwTrie trie(testing::views_of(terms));
    const auto& sections = trie.sections();
    // Per node: one bit per wavelet level (S_alpha has one label per node but
    // the root), S_last, internal and terminal; 3.2% rank counts and the
    // select samples of S_last (32 bits per 64 ones) on top, and the two
    // 256-entry tables (codes, child bases).
    const double bits_per_node = (sections.level_count + 3) * (1 + 16.0 / kBitsPerRankBlock) + 0.5 + 0.05;
    const double table_bytes = 256 * (2 + 4) + 16.0 * 64;  // two words of padding and spare per section at most
    CHECK(static_cast<double>(trie.bytes()) <= trie.node_count() * bits_per_node / 8 + table_bytes);
}

TEST_CASE("xbw trie: a copy of the flat buffer answers through the same sections") {
    const auto terms = testing::generated_dictionary(6, 500, false);
    const XbwTrie trie(testing::views_of(terms));
    const std::vector<uint64_t> copy(trie.buffer().begin(), trie.buffer().end());  // as a device copy would be
    const XbwTrieView view = trie.sections().view(copy.data());
    uint64_t index = 0;
    for (const auto& term : terms) REQUIRE(find(view, term) == index++);
}
