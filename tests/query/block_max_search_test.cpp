// Search on the query layout (BlockCursor: AND with block skipping, OR with
// block-max MaxScore or Block-Max WAND) must return exactly the exhaustive top k, with every
// codec: the same docids in the same order (ties by smaller docid), the same
// scores, against a brute-force ranking and, bit for bit, against exhaustive
// evaluation of the run files. And it must skip: a selective AND decodes a
// fraction of the frequent list's blocks, block-max OR a fraction of all.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "analysis/analyzer.hpp"
#include "query/searcher.hpp"
#include "store/codecs/registry.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"
#include "query/long_lists.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

struct Expected {
    std::string query;
    QueryMode mode;
    std::vector<ScoredDocument> ranking;                  // brute force, every match
    std::vector<std::vector<ScoredDocument>> run_files;  // by k: the run files' exhaustive top k
};

constexpr size_t kDepths[] = {1, 10, 1000};

// The references, computed once on the index without query.post.
std::vector<Expected> references(const std::filesystem::path& standard, const std::vector<std::string>& queries) {
    const IndexReader index(standard);
    const Searcher searcher(index);
    REQUIRE(searcher.query_postings() == nullptr);
    std::vector<Expected> out;
    for (const auto& query : queries) {
        for (const QueryMode mode : {QueryMode::kAnd, QueryMode::kOr}) {
            Expected expected{query, mode, exhaustive_ranking(index, query, mode), {}};
            for (const size_t k : kDepths) {
                expected.run_files.push_back(searcher.search(query, {.k = k, .mode = mode, .algorithm = Algorithm::kExhaustive}).hits);
            }
            out.push_back(std::move(expected));
        }
    }
    return out;
}

// Every query, mode and k on the query layout of every codec; returns the
// number of non-empty AND and OR results.
std::pair<size_t, size_t> check_every_codec(const TempDir& dir, const std::filesystem::path& standard,
                                            const std::vector<Expected>& expected) {
    size_t nonempty_and = 0, nonempty_or = 0;
    for (const auto& codec : codecs::all_codecs()) {
        CAPTURE(codec.name);
        const IndexReader index(with_query_layout(dir, standard, codec.name));
        const Searcher searcher(index);
        REQUIRE(searcher.query_postings() != nullptr);
        Analyzer analyzer(index.analysis());
        for (const auto& e : expected) {
            for (size_t d = 0; d < std::size(kDepths); ++d) {
                const size_t k = kDepths[d];
                CAPTURE(e.query);
                CAPTURE(e.mode == QueryMode::kAnd);
                CAPTURE(k);
                const auto result = searcher.search(e.query, {.k = k, .mode = e.mode}, analyzer);
                check_same_top_k(result.hits, e.ranking, k);
                CHECK(result.hits == e.run_files[d]);  // bit for bit
                if (e.mode == QueryMode::kOr) {
                    const auto wand = searcher.search(e.query, {.k = k, .mode = e.mode, .algorithm = Algorithm::kBlockMaxWand}, analyzer);
                    CHECK(wand.hits == e.run_files[d]);
                }
                // The query layout's path was taken: its lists have blocks.
                if (!result.hits.empty()) CHECK(result.stats.blocks > 0);
                (e.mode == QueryMode::kAnd ? nonempty_and : nonempty_or) += !result.hits.empty();
            }
        }
    }
    return {nonempty_and, nonempty_or};
}

}  // namespace

TEST_CASE("block-max search on lists of hundreds of blocks equals the exhaustive top k, every codec, AND and OR, k 1, 10, 1000") {
    TempDir dir;
    std::mt19937 random(97);
    const auto collection = long_list_collection(random, 50000);
    const auto standard = build_text_index(dir, collection.texts);
    {
        // The frequent lists are long: hundreds of blocks.
        const IndexReader index(standard);
        Analyzer analyzer(index.analysis());
        const auto first = index.find_term(analyzer.analyze_query(collection.common[0]).at(0));
        REQUIRE(first.has_value());
        CHECK(index.term(*first).df > 300 * 128);
    }
    std::vector<std::string> queries;
    for (int q = 0; q < 70; ++q) queries.push_back(long_list_query(random, collection));
    queries.push_back(collection.common[0] + " " + collection.common[1]);  // the two longest lists
    queries.push_back(collection.common[5] + " " + collection.medium[0]);  // long and short
    const auto [nonempty_and, nonempty_or] = check_every_codec(dir, standard, references(standard, queries));
    CHECK(nonempty_and > 4 * 3 * 15);
    CHECK(nonempty_or > 4 * 3 * 50);
}

TEST_CASE("block-max search on the bundled sample collection equals the exhaustive top k, every codec") {
    TempDir dir;
    const auto standard = dir / "sample";
    build_index(standard_pipeline({std::string(INVIDX_SOURCE_DIR) + "/sample/debian-docs.warc.gz"}, standard, 2, 2));
    // Query words from the sample's own vocabulary, frequent and rare: terms
    // that analyze to themselves (a stem may stem again).
    std::vector<std::string> frequent, rare;
    {
        const IndexReader index(standard);
        Analyzer analyzer(index.analysis());
        for (uint64_t t = 0; t < index.term_count(); ++t) {
            const auto info = index.term(t);
            const std::string term(info.term);
            const auto analyzed = analyzer.analyze_query(term);
            if (analyzed.size() != 1 || analyzed[0] != term) continue;
            if (info.df >= 20) frequent.push_back(term);
            else if (info.df <= 3 && t % 17 == 0) rare.push_back(term);
        }
    }
    REQUIRE(frequent.size() > 20);
    REQUIRE(rare.size() > 20);
    std::mt19937 random(5);
    std::vector<std::string> queries;
    for (int q = 0; q < 80; ++q) {
        std::string query;
        for (int t = 1 + static_cast<int>(random() % 8); t > 0; --t) {
            query += (query.empty() ? "" : " ") +
                     (random() % 3 ? frequent[random() % frequent.size()] : rare[random() % rare.size()]);
        }
        queries.push_back(query);
    }
    const auto [nonempty_and, nonempty_or] = check_every_codec(dir, standard, references(standard, queries));
    CHECK(nonempty_and > 4 * 3 * 10);
    CHECK(nonempty_or > 4 * 3 * 70);
}

TEST_CASE("a selective AND decodes only the blocks it lands in, and block-max OR skips blocks for small k") {
    TempDir dir;
    std::mt19937 random(13);
    const auto collection = long_list_collection(random, 50000);
    const auto standard = build_text_index(dir, collection.texts);
    const IndexReader index(with_query_layout(dir, standard, "bp128"));
    const Searcher searcher(index);
    Analyzer analyzer(index.analysis());
    const IndexReader plain(standard);

    // A word of a few dozen documents with the most frequent one (hundreds of blocks).
    std::string rare;
    for (const auto& word : collection.medium) {
        const auto term = plain.find_term(analyzer.analyze_query(word).at(0));
        if (term && plain.term(*term).df >= 30 && plain.term(*term).df <= 60) {
            rare = word;
            break;
        }
    }
    REQUIRE(!rare.empty());
    const std::string selective = rare + " " + collection.common[0];
    for (const size_t k : {size_t{10}, size_t{1000}}) {
        CAPTURE(k);
        const auto result = searcher.search(selective, {.k = k, .mode = QueryMode::kAnd}, analyzer);
        check_same_top_k(result.hits, exhaustive_ranking(plain, selective, QueryMode::kAnd), k);
        REQUIRE(!result.hits.empty());
        MESSAGE("selective AND, k " << k << ": " << result.stats.docid_blocks_decoded << " of " << result.stats.blocks
                                    << " blocks' docids decoded, " << result.stats.tf_blocks_decoded << " blocks' tfs");
        // The rare list's one block, and of the long list's 350 or so only those
        // holding one of the rare list's docids (at most 60): the rest are skipped.
        CHECK(result.stats.docid_blocks_decoded <= 61);
        CHECK(result.stats.docid_blocks_decoded * 4 < result.stats.blocks);
        CHECK(result.stats.tf_blocks_decoded <= result.stats.docid_blocks_decoded);
    }
    // The same query on the run files decodes no block (it has none).
    CHECK(searcher.search(selective, {.k = 10, .mode = QueryMode::kAnd, .algorithm = Algorithm::kMaxscore}).stats.blocks == 0);

    // OR over the frequent lists with k = 10: block maxima rule out blocks.
    for (const bool wand : {false, true}) {
        QueryStats total;
        for (int q = 0; q < 10; ++q) {
            const std::string query = collection.common[q % 3] + " " + collection.common[3 + q % 3] + " " +
                                      collection.medium[static_cast<size_t>(q) * 7 + 30];
            const auto result = searcher.search(query, {.k = 10, .mode = QueryMode::kOr, .algorithm = wand ? Algorithm::kBlockMaxWand : Algorithm::kBlockMaxMaxscore}, analyzer);
            check_same_top_k(result.hits, exhaustive_ranking(plain, query, QueryMode::kOr), 10);
            total += result.stats;
        }
        MESSAGE(std::string(wand ? "Block-Max WAND" : "block-max MaxScore")
                << ", k 10: " << total.docid_blocks_decoded << " of " << total.blocks << " blocks' docids decoded, "
                << total.tf_blocks_decoded << " blocks' tfs, " << total.documents_scored << " documents scored of "
                << total.postings << " postings");
        CHECK(total.docid_blocks_decoded * 10 < total.blocks * 9);
        CHECK(total.tf_blocks_decoded * 10 < total.blocks * 9);
        CHECK(total.documents_scored * 20 < total.postings);
    }
}
