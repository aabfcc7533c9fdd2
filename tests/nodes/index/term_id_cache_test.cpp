#include <doctest/doctest.h>

#include <string>

#include "nodes/index/term_id_cache.hpp"

using invidx::TermIdCache;

TEST_CASE("TermIdCache: an id comes back only for its own collection and key bytes") {
    TermIdCache cache(4);
    const auto h = [](uint32_t collection, std::string_view key) { return TermIdCache::hash(collection, key); };
    CHECK(cache.find(1100, "ple", h(1100, "ple")) == TermIdCache::kMiss);
    cache.remember(1100, "ple", h(1100, "ple"), 7);
    CHECK(cache.find(1100, "ple", h(1100, "ple")) == 7);
    // The same stored key under another prefix collection is another term,
    // even when it is looked up with the same hash (the same slot).
    CHECK(cache.find(1101, "ple", h(1100, "ple")) == TermIdCache::kMiss);
    // Same hash and collection, other bytes or length: a miss.
    CHECK(cache.find(1100, "plf", h(1100, "ple")) == TermIdCache::kMiss);
    CHECK(cache.find(1100, "pl", h(1100, "ple")) == TermIdCache::kMiss);
    // A key at the limit is kept, a longer one is not.
    const std::string longest(TermIdCache::kKeyBytes, 'k'), longer(TermIdCache::kKeyBytes + 1, 'k');
    cache.remember(3, longest, h(3, longest), 11);
    CHECK(cache.find(3, longest, h(3, longest)) == 11);
    cache.remember(3, longer, h(3, longer), 12);
    CHECK(cache.find(3, longer, h(3, longer)) == TermIdCache::kMiss);
    // One slot: the last remembered term replaces the one before.
    TermIdCache one(1);
    one.remember(0, "a", h(0, "a"), 1);
    one.remember(0, "b", h(0, "b"), 2);
    CHECK(one.find(0, "a", h(0, "a")) == TermIdCache::kMiss);
    CHECK(one.find(0, "b", h(0, "b")) == 2);
}
