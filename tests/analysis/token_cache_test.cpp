#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "analysis/stem.hpp"
#include "analysis/term_hash.hpp"
#include "analysis/token_cache.hpp"

TEST_CASE("TokenCache: same stop words and stems as the plain stemmer, hits and evictions alike") {
    std::vector<std::string> words = {"caresses", "ponies", "relational", "generalizations", "running",
                                      "ran", "agreed", "hopping", "sky", "ands", "feet", "conditional",
                                      "the", "and", "a", "thereafter",
                                      std::string(38, 'r') + "ing", std::string(39, 's') + "ational",
                                      // stems that are not a prefix of their token: kept after the
                                      // token in the entry, or beside it when both do not fit
                                      "happy", "cry", std::string(14, 'a') + "y", std::string(30, 'a') + "y"};
    for (int i = 0; i < 200; ++i) words.push_back("word" + std::to_string(i) + (i % 2 ? "ing" : "s"));
    const std::vector<std::string> stopwords = {"the", "and", "a"};
    for (size_t slots : {size_t{1}, size_t{2}, size_t{1000}}) {
        CAPTURE(slots);
        invidx::TokenCache cache(stopwords, "porter", slots);
        invidx::PorterStemmer plain("porter");
        for (int round = 0; round < 3; ++round) {  // round 0 fills, later rounds hit or evict
            for (const auto& word : words) {
                CAPTURE(word);
                const auto& entry = cache.lookup(word, invidx::hash_term(word));
                const bool stopword = word == "the" || word == "and" || word == "a";
                CHECK(entry.stopword == stopword);
                if (stopword) continue;
                const std::string expected(plain.stem(word));
                CHECK(cache.stem(entry) == expected);
                CHECK(entry.stem_hash == invidx::hash_term(expected));
            }
        }
    }
    invidx::TokenCache none({}, "none");
    const auto& same = none.lookup("running", invidx::hash_term("running"));
    CHECK_FALSE(same.stopword);
    CHECK(none.stem(same) == "running");
    CHECK(same.stem_hash == invidx::hash_term("running"));
}

TEST_CASE("TokenCache: a hit keeps the caller's stamp, a refill or a long token resets it") {
    invidx::TokenCache cache({}, "porter", 1);  // one set of two slots: a third token evicts
    auto& first = cache.lookup("ponies", invidx::hash_term("ponies"));
    CHECK(first.stamp == 0);
    first.stamp = 7;
    first.term_index = 3;
    auto& again = cache.lookup("ponies", invidx::hash_term("ponies"));
    CHECK(again.stamp == 7);
    CHECK(again.term_index == 3);
    const auto stamp_of = [&](const std::string& token) { return cache.lookup(token, invidx::hash_term(token)).stamp; };
    CHECK(stamp_of("sky") == 0);      // the set's other slot
    CHECK(stamp_of("ponies") == 7);   // still there, and now the more recent
    CHECK(stamp_of("feet") == 0);     // takes sky's slot
    CHECK(stamp_of("sky") == 0);      // takes ponies' slot (feet is more recent)
    CHECK(stamp_of("ponies") == 0);   // filled again
    const std::string long_token(invidx::TokenCache::kInlineTokenBytes + 1, 'x');
    auto& overflow = cache.lookup(long_token, invidx::hash_term(long_token));
    overflow.stamp = 9;
    CHECK(cache.lookup(long_token, invidx::hash_term(long_token)).stamp == 0);
    cache.lookup("sky", invidx::hash_term("sky")).stamp = 5;
    cache.clear_stamps();
    CHECK(cache.lookup("sky", invidx::hash_term("sky")).stamp == 0);
}

TEST_CASE("TokenCache: lookup_short finds what lookup filled, and tells apart tokens of one hash by their bytes") {
    invidx::TokenCache cache({"an"}, "porter", 4);
    const auto words = [](std::string_view token) { return invidx::short_term_words(token.data(), token.size()); };
    for (const std::string token : {"a", "an", "ponies", "relational", "caresses", "generalizing", "sixteenbytesxyzw"}) {
        CAPTURE(token);
        auto& filled = cache.lookup(token, invidx::hash_term(token));
        filled.stamp = 11;
        auto& found = cache.lookup_short(token, words(token), invidx::hash_term(token));
        CHECK(&found == &filled);
        CHECK(found.stamp == 11);
    }
    // One made-up hash for tokens that differ in one byte, at every length up to 16.
    invidx::PorterStemmer plain("porter");
    for (size_t n = 1; n <= invidx::kShortTermBytes; ++n) {
        std::string first(n, 'k');
        std::string second = first;
        second[n - 1] = 'm';
        for (int round = 0; round < 2; ++round) {
            for (const std::string& token : {first, second}) {
                CAPTURE(token);
                const auto& entry = cache.lookup_short(token, words(token), 0x5eed);
                CHECK(cache.stem(entry) == plain.stem(token));
                CHECK(entry.token_length == n);
            }
        }
    }
}
