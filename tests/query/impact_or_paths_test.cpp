// Every impact evaluation path on its own, against brute force over the
// stored impacts: impact_taat_or (accumulator windows, wide and narrow, so
// that blocks straddle windows and windows are passed over),
// impact_maxscore_or (integer block-max MaxScore), the generic maxscore_or
// and daat_and over ImpactBlockCursors; and ImpactTopK's order on ties.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "analysis/analyzer.hpp"
#include "query/daat_and.hpp"
#include "query/impact_block_cursor.hpp"
#include "query/impact_maxscore_or.hpp"
#include "query/impact_taat_or.hpp"
#include "query/impact_topk.hpp"
#include "query/long_lists.hpp"
#include "query/maxscore_or.hpp"
#include "store/merge.hpp"
#include "store/query_postings.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

// The top k of the summed stored impacts (every list: AND; any: OR), ties by smaller docid.
std::vector<ScoredDocument> brute_force(const std::vector<QueryList>& lists, uint64_t documents, bool conjunctive, size_t k) {
    std::vector<uint64_t> scores(documents, 0);
    std::vector<size_t> matched(documents, 0);
    std::vector<uint32_t> docids(128), impacts(128);
    for (const auto& list : lists) {
        for (size_t b = 0; b < list.blocks().size(); ++b) {
            const size_t n = list.blocks()[b].postings;
            list.decode_docids(b, std::span(docids.data(), n));
            list.decode_impacts(b, std::span(impacts.data(), n));
            for (size_t p = 0; p < n; ++p) {
                scores[docids[p]] += impacts[p];
                ++matched[docids[p]];
            }
        }
    }
    std::vector<ScoredDocument> all;
    for (uint32_t d = 0; d < documents; ++d) {
        if (conjunctive ? matched[d] == lists.size() : matched[d] > 0) all.push_back({d, static_cast<double>(scores[d])});
    }
    std::sort(all.begin(), all.end(), ranks_before);
    if (all.size() > k) all.resize(k);
    return all;
}

std::vector<std::string> random_terms(std::mt19937& random, const LongListCollection& collection) {
    const int length = 1 + static_cast<int>(random() % 6);
    std::vector<std::string> terms;
    for (int t = 0; t < length; ++t) {
        const std::vector<std::string>* pool = nullptr;
        switch (random() % 4) {
            case 0: pool = &collection.common; break;
            case 1: pool = &collection.medium; break;
            case 2: pool = &collection.skewed; break;
            default: pool = &collection.rare;
        }
        const std::string& term = (*pool)[random() % pool->size()];
        if (std::find(terms.begin(), terms.end(), term) == terms.end()) terms.push_back(term);
    }
    return terms;
}

// The index's term for a word of the collection (its analyzed form).
std::string analyzed_term(const IndexReader& index, const std::string& word) {
    Analyzer analyzer(index.analysis());
    const auto terms = analyzer.analyze_query(word);
    REQUIRE(terms.size() == 1);
    return terms[0];
}

}  // namespace

TEST_CASE("every impact path equals brute force, OR and AND, k 1, 10, 1000, wide and narrow windows") {
    TempDir dir;
    std::mt19937 random(97);
    const auto collection = long_list_collection(random, 12000);
    const auto path = build_text_index(dir, collection.texts);
    merge_runs(path, {.query_codec = "bp128", .impact_bits = 8});
    const IndexReader index(path);
    const QueryPostings layout(index);
    REQUIRE(layout.has_impacts());
    Analyzer analyzer(index.analysis());

    size_t taat_suited = 0, daat_suited = 0, windows_passed = 0, full_or = 0;
    for (int q = 0; q < 200; ++q) {
        std::vector<QueryList> lists;
        std::string text;
        for (const auto& word : random_terms(random, collection)) {
            const auto analyzed = analyzer.analyze_query(word);
            REQUIRE(analyzed.size() == 1);
            const auto term = index.find_term(analyzed[0]);
            if (!term) continue;
            lists.push_back(layout.list(*term));
            text += word + " ";
        }
        if (lists.empty()) continue;
        std::vector<const QueryList*> pointers;
        for (const auto& list : lists) pointers.push_back(&list);
        (impact_taat_suits(pointers, index.num_documents()) ? taat_suited : daat_suited) += 1;
        CAPTURE(text);
        for (const size_t k : {size_t{1}, size_t{10}, size_t{1000}}) {
            CAPTURE(k);
            const auto expected_or = brute_force(lists, index.num_documents(), false, k);
            full_or += expected_or.size() == k;
            for (const uint32_t window : {kImpactWindowDocs, uint32_t{1000}, uint32_t{97}}) {
                CAPTURE(window);
                QueryStats stats;
                CHECK(impact_taat_or(pointers, k, &stats, window) == expected_or);
                if (window == 97 && stats.docid_blocks_decoded < stats.blocks) ++windows_passed;
            }
            std::vector<ImpactBlockCursor> cursors(lists.begin(), lists.end());
            CHECK(impact_maxscore_or(cursors, k) == expected_or);
            std::vector<ImpactBlockCursor> generic(lists.begin(), lists.end());
            CHECK(maxscore_or(std::span<ImpactBlockCursor>(generic), {}, Bm25({}, 1, 1.0), k) == expected_or);
            std::vector<ImpactBlockCursor> conjunctive(lists.begin(), lists.end());
            CHECK(daat_and(std::span<ImpactBlockCursor>(conjunctive), {}, Bm25({}, 1, 1.0), k) ==
                  brute_force(lists, index.num_documents(), true, k));
        }
    }
    // Both sides of the choice, full top ks, and windows passed over undecoded all happened.
    CHECK(taat_suited > 20);
    CHECK(daat_suited > 20);
    CHECK(full_or > 200);
    CHECK(windows_passed > 20);
}

TEST_CASE("impact_taat_suits wants two lists or more, enough postings and scores that fit 32 bits") {
    TempDir dir;
    std::mt19937 random(5);
    const auto collection = long_list_collection(random, 3000);
    const auto path = build_text_index(dir, collection.texts);
    merge_runs(path, {.query_codec = "bp128", .impact_bits = 8});
    const IndexReader index(path);
    const QueryPostings layout(index);
    const auto common_term = index.find_term(analyzed_term(index, collection.common[0]));
    REQUIRE(common_term);
    std::optional<uint64_t> rare_term;
    for (size_t i = 0; i < collection.rare.size() && !rare_term; ++i) rare_term = index.find_term(analyzed_term(index, collection.rare[i]));
    REQUIRE(rare_term);
    const auto common = layout.list(*common_term);
    const auto rare = layout.list(*rare_term);
    const std::vector<const QueryList*> long_one = {&common};
    const std::vector<const QueryList*> short_one = {&rare};
    const std::vector<const QueryList*> long_two = {&common, &rare};
    const std::vector<const QueryList*> short_two = {&rare, &rare};
    CHECK(impact_taat_suits(long_two, index.num_documents()));
    CHECK(!impact_taat_suits(long_one, index.num_documents()));  // one list: document at a time
    CHECK(!impact_taat_suits(short_two, index.num_documents()));
    CHECK(impact_taat_suits(short_two, 2 * rare.df() * kImpactTaatDocsPerPosting));
    CHECK(!impact_taat_suits(short_two, 2 * rare.df() * kImpactTaatDocsPerPosting + 1));
    CHECK(impact_taat_or(short_one, 0).empty());
    CHECK(impact_taat_or({}, 10).empty());
}

TEST_CASE("ImpactTopK keeps the k best by score, ties by smaller docid, in any arrival order") {
    std::mt19937 random(3);
    for (int round = 0; round < 200; ++round) {
        const size_t k = 1 + random() % 20;
        std::vector<ScoredDocument> all;
        std::vector<uint32_t> docids(300);
        for (uint32_t d = 0; d < docids.size(); ++d) docids[d] = d * 7 + static_cast<uint32_t>(random() % 7);
        std::shuffle(docids.begin(), docids.end(), random);
        ImpactTopK top(k);
        for (const uint32_t docid : docids) {
            const auto score = static_cast<uint32_t>(random() % 6);  // many ties
            all.push_back({docid, static_cast<double>(score)});
            top.push(docid, score);
            if (all.size() >= k) {
                auto sorted = all;
                std::sort(sorted.begin(), sorted.end(), ranks_before);
                CHECK(top.threshold() == static_cast<int64_t>(sorted[k - 1].score));
            } else {
                CHECK(top.threshold() == -1);
            }
        }
        std::sort(all.begin(), all.end(), ranks_before);
        all.resize(k);
        CHECK(top.take_sorted() == all);
    }
    ImpactTopK none(0);
    CHECK(!none.push(1, 5));
    CHECK(none.take_sorted().empty());
}
