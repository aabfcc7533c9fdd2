// Search on the query-ready layout (query.post) must give exactly what it
// gives on the run files, with every codec: same docids, same scores bit for
// bit, same order, in AND (block cursors), OR (block-max MaxScore there,
// MaxScore on the run files) and exhaustive OR.
#include <doctest/doctest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "query/searcher.hpp"
#include "store/codecs/registry.hpp"
#include "store/merge.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"

using namespace invidx;
using namespace invidx::testing;

TEST_CASE("search on the query layout equals search on the run files, for every codec") {
    TempDir dir;
    std::mt19937 random(23);
    const auto words = random_words(random, 500);
    // Long lists (several blocks of 128) for the frequent words, short for the rest.
    const auto standard = build_text_index(dir, skewed_documents(random, words, 1500, 3.0));

    std::vector<std::string> queries;
    for (int q = 0; q < 120; ++q) queries.push_back(random_query(random, words));
    queries.push_back(words[0] + " " + words[1]);  // two of the longest lists
    struct Case {
        QueryMode mode;
        size_t k;
        bool exhaustive;
    };
    const std::vector<Case> cases = {{QueryMode::kAnd, 10, false}, {QueryMode::kOr, 1, false}, {QueryMode::kOr, 10, false},
                                     {QueryMode::kOr, 1000, false}, {QueryMode::kOr, 10, true}};
    std::vector<std::vector<std::vector<ScoredDocument>>> expected;  // [case][query]
    {
        const IndexReader index(standard);
        const Searcher searcher(index);
        REQUIRE(searcher.query_postings() == nullptr);
        for (const Case& c : cases) {
            expected.emplace_back();
            for (const auto& result : searcher.search_all(queries, {.k = c.k, .mode = c.mode, .algorithm = c.exhaustive ? Algorithm::kExhaustive : Algorithm::kBlockMaxMaxscore})) {
                expected.back().push_back(result.hits);
            }
        }
    }
    size_t nonempty = 0;
    for (const auto& codec : codecs::all_codecs()) {
        CAPTURE(codec.name);
        const auto merged = dir / ("idx-" + std::string(codec.name));
        std::filesystem::copy(standard, merged, std::filesystem::copy_options::recursive);
        merge_runs(merged, {.query_codec = std::string(codec.name)});
        const IndexReader index(merged);
        const Searcher searcher(index);
        REQUIRE(searcher.query_postings() != nullptr);
        CHECK(searcher.query_postings()->codec().name == codec.name);
        for (size_t c = 0; c < cases.size(); ++c) {
            const auto results =
                searcher.search_all(queries, {.k = cases[c].k, .mode = cases[c].mode, .algorithm = cases[c].exhaustive ? Algorithm::kExhaustive : Algorithm::kBlockMaxMaxscore});
            for (size_t q = 0; q < queries.size(); ++q) {
                CAPTURE(queries[q]);
                CAPTURE(c);
                CHECK(results[q].hits == expected[c][q]);
                nonempty += !results[q].hits.empty();
            }
        }
    }
    CHECK(nonempty > 1000);
}
