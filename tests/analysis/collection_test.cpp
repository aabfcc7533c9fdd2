#include <doctest/doctest.h>

#include "invidx/error.hpp"
#include "analysis/collection.hpp"

TEST_CASE("fnv1a_32: published test vectors") {
    CHECK(invidx::fnv1a_32("") == 0x811c9dc5u);
    CHECK(invidx::fnv1a_32("a") == 0xe40c292cu);
    CHECK(invidx::fnv1a_32("foobar") == 0xbf9cf968u);
}

TEST_CASE("collection_of: prefix collections for 4+ bytes starting with three a-z") {
    CHECK(invidx::collection_of("aaaa") == 1024);
    CHECK(invidx::collection_of("abcd") == 1024 + 0 * 676 + 1 * 26 + 2);
    CHECK(invidx::collection_of("cdef") == 1024 + 2 * 676 + 3 * 26 + 4);
    CHECK(invidx::collection_of("zzzz") == invidx::kCollections - 1);
    CHECK(invidx::collection_of("zzz\xC3\xA9") == invidx::kCollections - 1);  // 4th byte may be anything
    CHECK(invidx::collection_of("abc1") == 1024 + 28);
}

TEST_CASE("collection_of: everything else is hashed into 0..1023") {
    CHECK(invidx::collection_of("a") == 0xe40c292cu % 1024);
    CHECK(invidx::collection_of("") == 0x811c9dc5u % 1024);
    for (std::string_view term : {"abc", "ab", "1abc", "a1bc", "ab1c", "Abcd", "\xC3\xA9" "abc", "{abc", "`abc"}) {
        CAPTURE(term);
        CHECK(invidx::collection_of(term) < invidx::kHashedCollections);
        CHECK(invidx::collection_of(term) == invidx::fnv1a_32(term) % 1024);
    }
}

TEST_CASE("collection_prefix and collection_prefix_length") {
    CHECK(invidx::collection_prefix(1024) == "aaa");
    CHECK(invidx::collection_prefix(invidx::kCollections - 1) == "zzz");
    CHECK(invidx::collection_prefix(invidx::collection_of("quux")) == "quu");
    CHECK(invidx::collection_prefix(5) == "");
    CHECK(invidx::collection_prefix_length(1023) == 0);
    CHECK(invidx::collection_prefix_length(1024) == 3);
    CHECK_THROWS_AS(invidx::collection_prefix(invidx::kCollections), invidx::Error);
    CHECK_THROWS_AS(invidx::collection_prefix_length(invidx::kCollections), invidx::Error);
    // Every prefix collection round-trips through its letters.
    for (uint32_t c = 1024; c < invidx::kCollections; c += 97) {
        CHECK(invidx::collection_of(invidx::collection_prefix(c) + "x") == c);
    }
}
