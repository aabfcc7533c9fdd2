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

TEST_CASE("xbw trie: the paper's example trie has its 10 nodes and finds its 5 keys") {
    // Wakatsuki et al. Fig. 1 / Table 1: aba, ba, bb, cb, cc.
    const std::vector<std::string_view> keys = {"aba", "ba", "bb", "cb", "cc"};
    const XbwTrie trie(keys);
    CHECK(trie.node_count() == 10);
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

TEST_CASE("xbw trie: ids in trie order are dense, distinct, map back to each term, and save the id map's bytes") {
    const auto terms = testing::generated_dictionary(8, 5000, true);
    const auto views = testing::views_of(terms);
    const XbwTrie by_dictionary(views);
    const XbwTrie by_trie(views, XbwTermIds::trie_order);
    REQUIRE(by_trie.trie_order_terms().size() == terms.size());
    CHECK(by_dictionary.trie_order_terms().empty());
    std::vector<bool> seen(terms.size(), false);
    uint64_t index = 0;
    for (const auto& term : terms) {
        const uint64_t id = find(by_trie.view(), term);
        REQUIRE(id < terms.size());
        CHECK_FALSE(seen[id]);
        seen[id] = true;
        CHECK(by_trie.trie_order_terms()[id] == index++);
    }
    for (const auto& string : testing::missing_strings(terms, 8)) REQUIRE(find(by_trie.view(), string) == kTermNotFound);
    // 13 bits a term fewer, less the padding word.
    CHECK(by_trie.bytes() + terms.size() * 13 / 8 <= by_dictionary.bytes() + 16);
}

TEST_CASE("xbw trie: a copy of the flat buffer answers through the same sections") {
    const auto terms = testing::generated_dictionary(6, 500, false);
    const XbwTrie trie(testing::views_of(terms));
    const std::vector<uint64_t> copy(trie.buffer().begin(), trie.buffer().end());  // as a device copy would be
    const XbwTrieView view = trie.sections().view(copy.data());
    uint64_t index = 0;
    for (const auto& term : terms) REQUIRE(find(view, term) == index++);
}
