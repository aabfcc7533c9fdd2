#include "nodes/index/cpu_btree_indexer.hpp"

#include <doctest/doctest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "invidx/error.hpp"
#include "invidx/indexer.hpp"
#include "nodes/regroup/regroup.hpp"
#include "support/indexer_check.hpp"

namespace {

using namespace invidx;
using namespace invidx::test;

static_assert(Indexer<CpuBtreeIndexer>, "the CPU indexer must satisfy the indexer contract");

}  // namespace

TEST_CASE("cpu indexer: one indexer owning everything matches a std::map index") {
    const std::vector<uint32_t> owner_of(kCollections, 0);
    std::vector<CpuBtreeIndexer> indexers;
    indexers.emplace_back(0, owned_by(owner_of, 0), false);
    check_indexers(indexers, owner_of, false, 11);
}

TEST_CASE("cpu indexer: three indexers split the collections, with positional lists") {
    std::vector<uint32_t> owner_of(kCollections);
    for (uint32_t c = 0; c < kCollections; ++c) owner_of[c] = (c * 7 + c / 5) % 3;
    std::vector<CpuBtreeIndexer> indexers;
    for (uint32_t i = 0; i < 3; ++i) indexers.emplace_back(i, owned_by(owner_of, i), true);
    check_indexers(indexers, owner_of, true, 12);
}

TEST_CASE("cpu indexer: ignores collections it does not own") {
    std::vector<bool> owned(kCollections, false);
    owned[collection_of("apple")] = true;
    CpuBtreeIndexer indexer(4, owned, false);
    indexer.index(one_doc_batch(0, 10, {"apple", "ab", "banana", "apple"}));
    const RunPostings run = indexer.end_run(0, 1, true);
    REQUIRE(run.lists.size() == 1);
    CHECK(run.lists[0].docids == std::vector<uint32_t>{10});
    CHECK(run.lists[0].tfs == std::vector<uint32_t>{2});
    const auto terms = indexer.export_terms();
    REQUIRE(terms.size() == 1);
    CHECK(terms[0].term == "apple");
    CHECK(terms[0].lists.size() == 1);
    CHECK(terms[0].lists[0].indexer == 4);
    CHECK(indexer.stats().characters == 2);  // "le": the trie holds "app"
}

TEST_CASE("cpu indexer: a (term, document) pair given twice adds to one posting") {
    // A batch the parser did not merge per document: "apple" twice in doc 0.
    ParsedBatch parsed;
    parsed.first_docid = 5;
    parsed.docs.resize(2);
    parsed.terms = "apple";
    parsed.positions = {7, 2, 4, 1};
    const uint32_t c = collection_of("apple");
    parsed.occurrences = {
        TermOccurrence{.local_docid = 0, .collection = c, .term_offset = 0, .term_length = 5, .tf = 1, .positions_offset = 0},
        TermOccurrence{.local_docid = 0, .collection = c, .term_offset = 0, .term_length = 5, .tf = 2, .positions_offset = 1},
        TermOccurrence{.local_docid = 1, .collection = c, .term_offset = 0, .term_length = 5, .tf = 1, .positions_offset = 3}};
    CpuBtreeIndexer indexer(0, std::vector<bool>(kCollections, true), true);
    indexer.index(regroup(std::move(parsed)));
    const RunPostings run = indexer.end_run(3, 1, false);
    REQUIRE(run.lists.size() == 1);
    CHECK(run.lists[0].docids == std::vector<uint32_t>{5, 6});
    CHECK(run.lists[0].tfs == std::vector<uint32_t>{3, 1});
    CHECK(run.lists[0].positions == std::vector<uint32_t>{2, 4, 7, 1});
    const auto terms = indexer.export_terms();
    REQUIRE(terms.size() == 1);
    CHECK(terms[0].df == 2);
    CHECK(terms[0].cf == 4);
    CHECK(indexer.stats().postings == 2);
}

TEST_CASE("cpu indexer: bad input is an error, not a crash") {
    CpuBtreeIndexer indexer(0, std::vector<bool>(kCollections, true), true);

    SUBCASE("ownership table of the wrong size") {
        CHECK_THROWS_AS(CpuBtreeIndexer(0, std::vector<bool>(10, true), false), Error);
    }
    SUBCASE("batches out of docid order") {
        indexer.index(one_doc_batch(0, 100, {"apple"}));
        try {
            indexer.index(one_doc_batch(1, 50, {"apple"}));
            FAIL("expected an error");
        } catch (const Error& error) {
            CHECK(error.context().node == "index");
            CHECK(std::string(error.what()).find("batch 1") != std::string::npos);
            CHECK(std::string(error.what()).find("docid 50") != std::string::npos);
        }
    }
    SUBCASE("the same document again in a later run") {
        indexer.index(one_doc_batch(0, 100, {"apple"}));
        indexer.end_run(0, 1, false);
        CHECK_THROWS_AS(indexer.index(one_doc_batch(1, 100, {"apple"})), Error);
    }
    SUBCASE("a term outside its collection") {
        RegroupedBatch batch = one_doc_batch(0, 0, {"apple"});
        batch.terms = "pearl";
        CHECK_THROWS_WITH_AS(indexer.index(batch), doctest::Contains("does not belong"), Error);
    }
    SUBCASE("term bytes past the arena") {
        RegroupedBatch batch = one_doc_batch(0, 0, {"apple"});
        batch.occurrences[0].term_offset = 3;
        CHECK_THROWS_WITH_AS(indexer.index(batch), doctest::Contains("term bytes run past the batch's term arena"),
                             Error);
    }
    SUBCASE("positions past the arena") {
        RegroupedBatch batch = one_doc_batch(0, 0, {"apple", "apple"});
        batch.positions.pop_back();
        CHECK_THROWS_WITH_AS(indexer.index(batch), doctest::Contains("positions run past the batch's position arena"),
                             Error);
    }
    SUBCASE("an occurrence with tf 0") {
        RegroupedBatch batch = one_doc_batch(0, 0, {"apple"});
        batch.occurrences[0].tf = 0;
        CHECK_THROWS_WITH_AS(indexer.index(batch), doctest::Contains("docid 0: occurrence with tf 0"), Error);
    }
    SUBCASE("an occurrence in another collection's slice") {
        RegroupedBatch batch = one_doc_batch(0, 0, {"apple"});
        batch.occurrences[0].collection += 1;
        CHECK_THROWS_WITH_AS(indexer.index(batch), doctest::Contains("occurrence 0 of collection"), Error);
    }
    SUBCASE("slice past the occurrences") {
        RegroupedBatch batch = one_doc_batch(0, 0, {"apple"});
        batch.slices[0].end = 5;
        CHECK_THROWS_AS(indexer.index(batch), Error);
    }
    SUBCASE("docid beyond 32 bits") {
        CHECK_THROWS_WITH_AS(indexer.index(one_doc_batch(0, uint64_t{1} << 33, {"apple"})),
                             doctest::Contains("docids above 2^32-1 are not supported"), Error);
    }
    SUBCASE("runs that do not increase") {
        indexer.end_run(2, 1, false);
        CHECK_THROWS_AS(indexer.end_run(2, 1, false), Error);
        CHECK_THROWS_AS(indexer.end_run(1, 1, false), Error);
    }
}
