#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "analysis/stem.hpp"
#include "analysis/stem_cache.hpp"

TEST_CASE("CachedStemmer: same stems as the plain stemmer, hits and evictions alike") {
    std::vector<std::string> words = {"caresses", "ponies", "relational", "generalizations", "running",
                                      "ran", "agreed", "hopping", "sky", "ands", "feet", "conditional"};
    for (int i = 0; i < 200; ++i) words.push_back("word" + std::to_string(i) + (i % 2 ? "ing" : "s"));
    for (size_t slots : {size_t{1}, size_t{2}, size_t{1000}}) {
        CAPTURE(slots);
        invidx::CachedStemmer cached("porter", slots);
        invidx::PorterStemmer plain("porter");
        for (int round = 0; round < 3; ++round) {  // round 0 fills, later rounds hit or evict
            for (const auto& word : words) {
                const std::string expected(plain.stem(word));
                CHECK(cached.stem(word) == expected);
            }
        }
    }
    invidx::CachedStemmer none("none");
    CHECK(none.stem("running") == "running");
}
