#include "nodes/regroup/regroup.hpp"

#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <random>
#include <vector>

#include "invidx/error.hpp"
#include "invidx/resident_terms.hpp"

namespace {

using namespace invidx;

// A batch of `doc_count` documents with random occurrences. Each occurrence
// gets a distinct term_offset that records its input order, so stability
// can be checked after the sort.
ParsedBatch random_batch(std::mt19937& random, uint32_t doc_count, uint32_t per_doc) {
    ParsedBatch batch;
    batch.sequence = 42;
    batch.first_docid = 1000;
    batch.text_bytes = 12345;
    batch.tokens = 777;
    batch.end_of_input = true;
    batch.lease = std::make_shared<int>(5);
    // A few collections carry most occurrences, like Zipf's law makes them.
    std::uniform_int_distribution<uint32_t> hot(0, 5);
    std::uniform_int_distribution<uint32_t> any(0, kCollections - 1);
    std::uniform_int_distribution<uint32_t> tf(1, 9);
    std::uniform_int_distribution<int> coin(0, 1);
    uint32_t order = 0;
    for (uint32_t doc = 0; doc < doc_count; ++doc) {
        batch.docs.push_back(ParsedDoc{.name = "d" + std::to_string(doc), .length = 0,
                                       .file_ordinal = 0, .source_offset = 0});
        for (uint32_t k = 0; k < per_doc; ++k) {
            TermOccurrence occurrence;
            occurrence.local_docid = doc;
            occurrence.collection = coin(random) ? hot(random) * 3001 % kCollections : any(random);
            occurrence.term_offset = order++;
            occurrence.term_length = 1;
            occurrence.tf = tf(random);
            batch.occurrences.push_back(occurrence);
        }
    }
    batch.terms.assign(order, 'x');
    batch.positions = {1, 2, 3};
    return batch;
}

}  // namespace

TEST_CASE("regroup: occurrences ordered by collection, stable, with exact slices") {
    std::mt19937 random(7);
    ParsedBatch batch = random_batch(random, 60, 25);
    const std::vector<TermOccurrence> input = batch.occurrences;
    const Lease lease = batch.lease;

    const RegroupedBatch out = regroup(std::move(batch));

    // Expected: for each collection, its occurrences in input order.
    std::map<uint32_t, std::vector<uint32_t>> expected_order;
    std::map<uint32_t, uint64_t> expected_tokens;
    for (const auto& occurrence : input) {
        expected_order[occurrence.collection].push_back(occurrence.term_offset);
        expected_tokens[occurrence.collection] += occurrence.tf;
    }

    REQUIRE(out.occurrences.size() == input.size());
    REQUIRE(out.slices.size() == expected_order.size());
    uint32_t next_begin = 0;
    auto expected = expected_order.begin();
    for (const CollectionSlice& slice : out.slices) {
        CHECK(slice.collection == expected->first);
        CHECK(slice.begin == next_begin);
        CHECK(slice.end > slice.begin);
        CHECK(slice.tokens == expected_tokens[slice.collection]);
        std::vector<uint32_t> got;
        for (uint32_t i = slice.begin; i < slice.end; ++i) {
            CHECK(out.occurrences[i].collection == slice.collection);
            got.push_back(out.occurrences[i].term_offset);
        }
        CHECK(got == expected->second);
        next_begin = slice.end;
        ++expected;
    }
    CHECK(next_begin == out.occurrences.size());

    // Within a collection, local docids never decrease (what the indexer relies on).
    for (const CollectionSlice& slice : out.slices) {
        for (uint32_t i = slice.begin + 1; i < slice.end; ++i) {
            CHECK(out.occurrences[i - 1].local_docid <= out.occurrences[i].local_docid);
        }
    }

    // The payload travels with it.
    CHECK(out.sequence == 42);
    CHECK(out.first_docid == 1000);
    CHECK(out.docs.size() == 60);
    CHECK(out.docs[59].name == "d59");
    CHECK(out.terms.size() == input.size());
    CHECK(out.positions == std::vector<uint32_t>{1, 2, 3});
    CHECK(out.text_bytes == 12345);
    CHECK(out.tokens == 777);
    CHECK(out.end_of_input);
    CHECK(out.lease == lease);
}

TEST_CASE("regroup: an empty batch gives no slices") {
    ParsedBatch batch;
    batch.sequence = 3;
    const RegroupedBatch out = regroup(std::move(batch));
    CHECK(out.occurrences.empty());
    CHECK(out.slices.empty());
    CHECK(out.sequence == 3);
}

TEST_CASE("regroup: first and last collections are kept") {
    ParsedBatch batch;
    batch.docs.resize(2);
    batch.occurrences = {
        TermOccurrence{.local_docid = 0, .collection = kCollections - 1, .term_offset = 0,
                       .term_length = 0, .tf = 2, .positions_offset = 0},
        TermOccurrence{.local_docid = 1, .collection = 0, .term_offset = 0, .term_length = 0,
                       .tf = 3, .positions_offset = 0},
        TermOccurrence{.local_docid = 1, .collection = kCollections - 1, .term_offset = 0,
                       .term_length = 0, .tf = 4, .positions_offset = 0}};
    const RegroupedBatch out = regroup(std::move(batch));
    REQUIRE(out.slices.size() == 2);
    CHECK(out.slices[0].collection == 0);
    CHECK(out.slices[0].tokens == 3);
    CHECK(out.slices[1].collection == kCollections - 1);
    CHECK(out.slices[1].begin == 1);
    CHECK(out.slices[1].end == 3);
    CHECK(out.slices[1].tokens == 6);
    CHECK(out.occurrences[1].local_docid == 0);
    CHECK(out.occurrences[2].local_docid == 1);
}

TEST_CASE("regroup: out-of-range collection or document is an error naming the batch") {
    ParsedBatch batch;
    batch.sequence = 9;
    batch.docs.resize(1);
    batch.occurrences = {TermOccurrence{.local_docid = 0, .collection = kCollections,
                                        .term_offset = 0, .term_length = 0, .tf = 1,
                                        .positions_offset = 0}};
    try {
        regroup(std::move(batch));
        FAIL("expected an error");
    } catch (const Error& error) {
        CHECK(error.context().node == "regroup");
        CHECK(std::string(error.what()).find("batch 9") != std::string::npos);
        CHECK(std::string(error.what()).find("collection 18600") != std::string::npos);
    }

    ParsedBatch bad_doc;
    bad_doc.docs.resize(1);
    bad_doc.occurrences = {TermOccurrence{.local_docid = 1, .collection = 5, .term_offset = 0,
                                          .term_length = 0, .tf = 1, .positions_offset = 0}};
    CHECK_THROWS_AS(regroup(std::move(bad_doc)), Error);
}

TEST_CASE("regroup: terms a GPU parser left on the device go along with the batch") {
    std::mt19937 random(11);
    ParsedBatch batch = random_batch(random, 4, 3);
    auto resident = std::make_shared<ResidentTerms>();
    resident->device = 0;
    resident->count = 17;
    batch.resident = resident;
    const RegroupedBatch out = regroup(std::move(batch));
    CHECK(out.resident.get() == resident.get());
    CHECK(out.resident->count == 17);
    CHECK(regroup(random_batch(random, 2, 2)).resident == nullptr);
}
