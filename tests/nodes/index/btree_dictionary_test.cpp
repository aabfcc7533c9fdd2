#include "nodes/index/btree_dictionary.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "invidx/error.hpp"

namespace {

using invidx::BTreeDictionary;

// std::string compares through char_traits<char>, which orders bytes as
// unsigned char: the byte-wise order the dictionary promises.
using Reference = std::map<std::string, uint32_t>;

void insert_both(BTreeDictionary& dictionary, Reference& reference, const std::string& key) {
    const auto expected = reference.find(key);
    bool inserted = false;
    const uint32_t next_id = static_cast<uint32_t>(reference.size()) * 7 + 3;  // ids need not be dense
    const uint32_t id = dictionary.find_or_insert(key, next_id, inserted);
    if (expected == reference.end()) {
        REQUIRE(inserted);
        REQUIRE(id == next_id);
        reference.emplace(key, id);
    } else {
        REQUIRE_FALSE(inserted);
        REQUIRE(id == expected->second);
    }
}

void check_against(const BTreeDictionary& dictionary, const Reference& reference) {
    REQUIRE(dictionary.size() == reference.size());
    std::vector<std::pair<std::string, uint32_t>> walked;
    dictionary.for_each_in_order(
        [&](std::string_view key, uint32_t id) { walked.emplace_back(std::string(key), id); });
    REQUIRE(walked.size() == reference.size());
    CHECK(std::equal(walked.begin(), walked.end(), reference.begin(),
                     [](const auto& a, const auto& b) { return a.first == b.first && a.second == b.second; }));
    for (const auto& [key, id] : reference) {
        const auto found = dictionary.find(key);
        REQUIRE(found.has_value());
        REQUIRE(*found == id);
    }
}

std::string random_key(std::mt19937& random) {
    std::uniform_int_distribution<int> shape(0, 9);
    std::uniform_int_distribution<int> any_byte(0, 255);
    std::uniform_int_distribution<int> letter('a', 'e');
    std::uniform_int_distribution<size_t> short_length(0, 8);
    std::string key;
    switch (shape(random)) {
        case 0:  // very short, from a tiny alphabet including 0x00 and 0xff
            for (size_t n = short_length(random) % 4; n > 0; --n) {
                const char alphabet[] = {'\0', 'a', 'b', '\xff'};
                key.push_back(alphabet[any_byte(random) % 4]);
            }
            break;
        case 1:  // shared 4-byte prefix, the case the cache cannot decide
        case 2:
            key = "abcd";
            for (size_t n = short_length(random); n > 0; --n) key.push_back(static_cast<char>(letter(random)));
            break;
        case 3:  // prefix ending in zero bytes: cache padding must not confuse lengths
            key = std::string("ab\0", 3);
            for (size_t n = short_length(random) % 3; n > 0; --n) key.push_back('\0');
            break;
        case 4: {  // long keys, up to the 255-byte limit, differing near the end
            key.assign(240 + any_byte(random) % 16, 'q');
            key.back() = static_cast<char>(any_byte(random));
            break;
        }
        case 5:  // bytes >= 0x80 (UTF-8) anywhere
            for (size_t n = 1 + short_length(random); n > 0; --n)
                key.push_back(static_cast<char>(0x80 + any_byte(random) % 128));
            break;
        default:  // general random bytes
            for (size_t n = short_length(random) + short_length(random); n > 0; --n)
                key.push_back(static_cast<char>(any_byte(random)));
            break;
    }
    return key;
}

}  // namespace

TEST_CASE("btree dictionary: an empty tree finds nothing") {
    BTreeDictionary dictionary;
    CHECK(dictionary.size() == 0);
    CHECK(dictionary.height() == 0);
    CHECK_FALSE(dictionary.find("").has_value());
    CHECK_FALSE(dictionary.find("abc").has_value());
    int calls = 0;
    dictionary.for_each_in_order([&](std::string_view, uint32_t) { ++calls; });
    CHECK(calls == 0);
}

TEST_CASE("btree dictionary: edge keys that tie on the 4-byte cache") {
    BTreeDictionary dictionary;
    Reference reference;
    const std::vector<std::string> keys = {
        "", std::string("\0", 1), std::string("\0\0", 2), std::string("\0\0\0\0", 4),
        std::string("\0\0\0\0\0", 5), "a", std::string("a\0", 2), std::string("a\0\0\0", 4),
        std::string("a\0\0\0\0", 5), "abcd", "abc", "abcde", "abcdf", "abcdef", "abcd\x80",
        "abcd\xff", "\xff\xff\xff\xff", "\xff\xff\xff\xff\xff", "\x80", "\x7f", "zz",
        std::string(255, 'x'), std::string(254, 'x') + "y", std::string(255, '\xff'),
        std::string(255, '\0')};
    for (const auto& key : keys) insert_both(dictionary, reference, key);
    for (const auto& key : keys) insert_both(dictionary, reference, key);  // all duplicates now
    check_against(dictionary, reference);
    CHECK_FALSE(dictionary.find(std::string("\0\0\0", 3)).has_value());
    CHECK_FALSE(dictionary.find("abcdeg").has_value());
    CHECK_FALSE(dictionary.find("ab").has_value());
}

TEST_CASE("btree dictionary: tens of thousands of random and adversarial keys match std::map") {
    std::mt19937 random(20240611);
    BTreeDictionary dictionary;
    Reference reference;
    for (int i = 0; i < 60000; ++i) insert_both(dictionary, reference, random_key(random));
    REQUIRE(reference.size() > 20000);
    check_against(dictionary, reference);

    // Absent keys are absent.
    int absent_checked = 0;
    for (int i = 0; i < 20000; ++i) {
        const std::string key = random_key(random);
        if (reference.count(key) != 0) continue;
        ++absent_checked;
        REQUIRE_FALSE(dictionary.find(key).has_value());
    }
    CHECK(absent_checked > 1000);

    // Height of a B-tree of minimum degree 16 holding n keys: at most
    // 1 + log_16((n + 1) / 2) levels, and at least log_32(n + 1).
    const double n = static_cast<double>(reference.size());
    CHECK(dictionary.height() <= 1 + static_cast<unsigned>(std::floor(std::log((n + 1) / 2) / std::log(16.0))));
    CHECK(dictionary.height() >= static_cast<unsigned>(std::ceil(std::log(n + 1) / std::log(32.0))));
}

TEST_CASE("btree dictionary: caches of 0xffffffff and long runs of equal caches match std::map") {
    // Unused cache slots hold 0xffffffff, so keys whose first four bytes
    // are 0xff must still sort and be found where nodes are full, half full
    // after a split, and where equal caches cross a group of four slots.
    std::mt19937 random(7);
    std::uniform_int_distribution<int> any_byte(0, 255);
    std::uniform_int_distribution<int> shape(0, 3);
    BTreeDictionary dictionary;
    Reference reference;
    for (int i = 0; i < 30000; ++i) {
        std::string key;
        switch (shape(random)) {
            case 0: key = "\xff\xff\xff\xff"; break;
            case 1: key = "\xff\xff\xff"; break;
            case 2: key = "abcd"; break;
            default: key = std::string(1, static_cast<char>(any_byte(random))); break;
        }
        for (int n = any_byte(random) % 4; n > 0; --n) key.push_back(static_cast<char>(any_byte(random) % 3 == 0 ? 0xff : any_byte(random)));
        insert_both(dictionary, reference, key);
    }
    REQUIRE(dictionary.height() >= 2);
    check_against(dictionary, reference);
    for (int i = 0; i < 5000; ++i) {
        std::string key = "\xff\xff\xff\xff";
        for (int n = 1 + any_byte(random) % 4; n > 0; --n) key.push_back(static_cast<char>(any_byte(random)));
        CHECK(dictionary.find(key).has_value() == (reference.count(key) != 0));
    }
}

TEST_CASE("btree dictionary: sorted and reverse-sorted inserts split correctly") {
    for (const bool reverse : {false, true}) {
        BTreeDictionary dictionary;
        Reference reference;
        std::vector<std::string> keys;
        for (int i = 0; i < 20000; ++i) {
            char buffer[16];
            std::snprintf(buffer, sizeof buffer, "k%07d", i);
            keys.emplace_back(buffer);
        }
        if (reverse) std::reverse(keys.begin(), keys.end());
        for (const auto& key : keys) insert_both(dictionary, reference, key);
        check_against(dictionary, reference);
        CHECK(dictionary.height() <= 4);
    }
}

TEST_CASE("btree dictionary: height grows one level when a full root splits") {
    BTreeDictionary dictionary;
    bool inserted = false;
    for (uint32_t i = 0; i < BTreeDictionary::kMaxKeys; ++i) {
        dictionary.find_or_insert(std::string(1, static_cast<char>('A' + i)), i, inserted);
    }
    CHECK(dictionary.height() == 1);
    CHECK(dictionary.node_count() == 1);
    dictionary.find_or_insert("zzz", 99, inserted);
    CHECK(inserted);
    CHECK(dictionary.height() == 2);
    CHECK(dictionary.node_count() == 3);

    // Height stays logarithmic: 100,000 keys fit in at most 4 levels of degree 16.
    for (uint32_t i = 0; i < 100000; ++i) dictionary.find_or_insert("n" + std::to_string(i), 1000 + i, inserted);
    CHECK(dictionary.height() >= 3);
    CHECK(dictionary.height() <= 4);
    CHECK(*dictionary.find("n77777") == 1000 + 77777);
}

TEST_CASE("btree dictionary: keys over 255 bytes are an error") {
    BTreeDictionary dictionary;
    bool inserted = true;
    CHECK_THROWS_AS(dictionary.find_or_insert(std::string(256, 'a'), 0, inserted), invidx::Error);
    CHECK(dictionary.size() == 0);
    CHECK_FALSE(dictionary.find(std::string(256, 'a')).has_value());
}
