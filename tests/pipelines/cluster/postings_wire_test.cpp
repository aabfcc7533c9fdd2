// The messages between cluster ranks: a regrouped batch's slices for one
// destination come back as the same postings (terms, docids, tf, positions;
// grouped by term, each term's docids increasing),
// with the batch's sequence, docids and document count, and nothing of the
// slices other ranks own.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "invidx/error.hpp"
#include "nodes/regroup/regroup.hpp"
#include "pipelines/cluster/postings_wire.hpp"

using namespace invidx;

namespace {

struct Posting {
    uint32_t collection;
    std::string term;
    uint32_t docid;
    uint32_t tf;
    std::vector<uint32_t> positions;
    bool operator==(const Posting&) const = default;
    auto operator<=>(const Posting&) const = default;
};

// The postings of the slices `keep` accepts, in slice order.
template <class Keep>
std::vector<Posting> postings_of(const RegroupedBatch& batch, bool positional, Keep keep) {
    std::vector<Posting> out;
    for (const auto& slice : batch.slices) {
        if (!keep(slice.collection)) continue;
        for (uint32_t i = slice.begin; i < slice.end; ++i) {
            const TermOccurrence& o = batch.occurrences[i];
            Posting p{o.collection, batch.terms.substr(o.term_offset, o.term_length),
                      static_cast<uint32_t>(batch.first_docid + o.local_docid), o.tf, {}};
            if (positional) p.positions.assign(batch.positions.begin() + o.positions_offset,
                                               batch.positions.begin() + o.positions_offset + o.tf);
            out.push_back(std::move(p));
        }
    }
    return out;
}

RegroupedBatch random_batch(std::mt19937& random, bool positional) {
    ParsedBatch batch;
    batch.sequence = 17;
    batch.first_docid = 5000;
    batch.text_bytes = 12345;
    batch.docs.resize(40);
    const std::vector<std::string> words = {"apple", "banana", "cherry", "date", "elder", "fig", "grape"};
    for (uint32_t d = 0; d < batch.docs.size(); ++d) {
        for (uint32_t w = 0; w < words.size(); ++w) {
            if (random() % 3 == 0) continue;
            TermOccurrence o;
            o.local_docid = d;
            o.collection = (w * 977) % kCollections;
            o.term_offset = static_cast<uint32_t>(batch.terms.size());
            o.term_length = static_cast<uint32_t>(words[w].size());
            batch.terms += words[w];
            o.tf = 1 + random() % 4;
            o.positions_offset = static_cast<uint32_t>(batch.positions.size());
            uint32_t position = random() % 10;
            for (uint32_t k = 0; k < o.tf; ++k) batch.positions.push_back(position += 1 + random() % 50);
            batch.occurrences.push_back(o);
        }
    }
    if (!positional) batch.positions.clear();
    return regroup(std::move(batch));
}

}  // namespace

TEST_CASE("a batch message holds exactly the destination's slices and decodes to the same postings") {
    std::mt19937 random(11);
    for (const bool positional : {true, false}) {
        CAPTURE(positional);
        const RegroupedBatch batch = random_batch(random, positional);
        std::vector<uint32_t> owner_rank(kCollections);
        for (uint32_t c = 0; c < kCollections; ++c) owner_rank[c] = c % 3;
        size_t total = 0;
        for (uint32_t destination = 0; destination < 3; ++destination) {
            std::string message;
            postings_wire::encode_batch(batch, owner_rank, destination, positional, message);
            const RegroupedBatch back = postings_wire::decode_batch(message, positional, 1);
            CHECK(back.sequence == batch.sequence);
            CHECK(back.first_docid == batch.first_docid);
            CHECK(back.docs.size() == batch.docs.size());
            CHECK(back.text_bytes == batch.text_bytes);
            CHECK(!back.end_of_input);
            const auto mine = [&](uint32_t c) { return owner_rank[c] == destination; };
            auto expected = postings_of(batch, positional, mine);
            auto got = postings_of(back, positional, [](uint32_t) { return true; });
            // Each term's docids still increase within its slice, as indexers need.
            for (size_t i = 0; i < got.size(); ++i)
                for (size_t j = i + 1; j < got.size(); ++j)
                    if (got[i].term == got[j].term) CHECK(got[i].docid < got[j].docid);
            std::sort(expected.begin(), expected.end());
            std::sort(got.begin(), got.end());
            CHECK(got == expected);
            total += expected.size();
            for (const auto& slice : back.slices) CHECK(owner_rank[slice.collection] == destination);
        }
        CHECK(total == batch.occurrences.size());
    }
}

TEST_CASE("a source's last batch is marked in the message's first byte") {
    RegroupedBatch end;
    end.sequence = 9;
    end.end_of_input = true;
    std::string message;
    postings_wire::encode_batch(end, std::vector<uint32_t>(kCollections, 0), 1, false, message);
    CHECK(postings_wire::is_batch_message(message));
    CHECK(message[0] == postings_wire::kLastBatchMessage);
    const RegroupedBatch back = postings_wire::decode_batch(message, false, 0);
    CHECK(back.end_of_input);
    CHECK(back.sequence == 9);
    CHECK(back.docs.empty());
    message[0] = postings_wire::kBatchMessage;  // a kind that contradicts the flag
    CHECK_THROWS_AS(postings_wire::decode_batch(message, false, 0), Error);
    CHECK(!postings_wire::is_batch_message(std::string(1, postings_wire::kEndOk)));
}

TEST_CASE("a batch message that is cut or damaged is an error naming its source rank") {
    std::mt19937 random(12);
    const RegroupedBatch batch = random_batch(random, true);
    const std::vector<uint32_t> owner_rank(kCollections, 0);
    std::string message;
    postings_wire::encode_batch(batch, owner_rank, 0, true, message);
    for (const size_t cut : {size_t{0}, size_t{1}, message.size() / 2, message.size() - 1}) {
        CAPTURE(cut);
        try {
            postings_wire::decode_batch(std::string_view(message).substr(0, cut), true, 3);
            FAIL("expected an error");
        } catch (const Error& error) {
            CHECK(std::string(error.what()).find("rank 3") != std::string::npos);
        }
    }
    CHECK_THROWS_AS(postings_wire::decode_batch(message + "x", true, 3), Error);
}

namespace {

// A batch made occurrence by occurrence: (docid, collection, term, positions).
struct BatchBuilder {
    ParsedBatch batch;
    explicit BatchBuilder(uint32_t documents) {
        batch.sequence = 3;
        batch.first_docid = 100;
        batch.docs.resize(documents);
    }
    void add(uint32_t docid, uint32_t collection, const std::string& term, std::vector<uint32_t> positions) {
        TermOccurrence o;
        o.local_docid = docid;
        o.collection = collection;
        o.term_offset = static_cast<uint32_t>(batch.terms.size());
        o.term_length = static_cast<uint32_t>(term.size());
        batch.terms += term;
        o.tf = static_cast<uint32_t>(positions.size());
        o.positions_offset = static_cast<uint32_t>(batch.positions.size());
        batch.positions.insert(batch.positions.end(), positions.begin(), positions.end());
        batch.tokens += o.tf;
        batch.occurrences.push_back(o);
    }
    // The parser's order: documents in order.
    RegroupedBatch regrouped(bool positional) {
        std::stable_sort(batch.occurrences.begin(), batch.occurrences.end(),
                         [](const TermOccurrence& a, const TermOccurrence& b) { return a.local_docid < b.local_docid; });
        ParsedBatch copy = batch;
        if (!positional) copy.positions.clear();
        return regroup(std::move(copy));
    }
};

void check_round_trip(const RegroupedBatch& batch, bool positional) {
    const std::vector<uint32_t> owner_rank(kCollections, 1);
    std::string message;
    postings_wire::encode_batch(batch, owner_rank, 1, positional, message);
    const RegroupedBatch back = postings_wire::decode_batch(message, positional, 0);
    auto expected = postings_of(batch, positional, [](uint32_t) { return true; });
    auto got = postings_of(back, positional, [](uint32_t) { return true; });
    std::sort(expected.begin(), expected.end());
    std::sort(got.begin(), got.end());
    CHECK(got == expected);
    CHECK(back.tokens == batch.tokens);
    REQUIRE(back.slices.size() == batch.slices.size());
    for (size_t s = 0; s < back.slices.size(); ++s) {
        CHECK(back.slices[s].collection == batch.slices[s].collection);
        CHECK(back.slices[s].tokens == batch.slices[s].tokens);
    }
}

}  // namespace

TEST_CASE("encoding for every rank at once gives each rank the message encoding for it alone gives") {
    std::mt19937 random(13);
    for (const bool positional : {true, false}) {
        CAPTURE(positional);
        const RegroupedBatch batch = random_batch(random, positional);
        std::vector<uint32_t> owner_rank(kCollections);
        for (uint32_t c = 0; c < kCollections; ++c) owner_rank[c] = (c * 7) % 4;
        std::vector<std::string> all(4);
        all[2] = "kept";  // this rank's own entry is left as it is
        postings_wire::encode_batches(batch, owner_rank, 2, positional, all);
        CHECK(all[2] == "kept");
        for (const uint32_t destination : {0u, 1u, 3u}) {
            std::string alone;
            postings_wire::encode_batch(batch, owner_rank, destination, positional, alone);
            CHECK(all[destination] == alone);
        }
    }
}

TEST_CASE("postings round-trip with docids far apart, many terms of one collection and long terms") {
    // More than 2^16 documents: docid gaps of three bytes.
    BatchBuilder builder(70000);
    std::mt19937 random(14);
    // 3000 terms in one collection (a slice grouped through the table), some
    // sharing their first 8 or 16 bytes, some longer than 16, one empty.
    std::vector<std::string> terms = {"", "a", "abcdefgh", "abcdefghi", "abcdefghj", "abcdefghijklmnop",
                                      "abcdefghijklmnopq", "abcdefghijklmnopr", std::string(300, 'z')};
    for (int t = 0; static_cast<int>(terms.size()) < 3000; ++t) terms.push_back("term" + std::to_string(t * 7919));
    for (uint32_t docid : {0u, 1u, 2u, 40000u, 69998u, 69999u}) {
        for (size_t t = 0; t < terms.size(); ++t) {
            if (random() % 3 == 0 && docid != 0) continue;
            builder.add(docid, 42, terms[t], {static_cast<uint32_t>(t)});
        }
    }
    // A few small slices too (grouped by comparison), one with a repeated term.
    for (uint32_t docid = 0; docid < 5; ++docid) builder.add(docid, 7, docid % 2 ? "odd" : "even", {docid});
    builder.add(3, 9000, "lonely", {1});
    for (const bool positional : {true, false}) {
        CAPTURE(positional);
        check_round_trip(builder.regrouped(positional), positional);
    }
}

TEST_CASE("positions round-trip at every width, with large tfs and the largest gaps") {
    BatchBuilder builder(10);
    std::mt19937 random(15);
    uint32_t collection = 1;
    for (uint32_t width = 1; width <= 32; ++width) {
        for (const uint32_t tf : {1u, 2u, 3u, 7u, 8u, 9u, 33u, 1000u}) {
            std::vector<uint32_t> positions;
            uint64_t position = 0;
            const uint64_t largest = (uint64_t{1} << width) - 1;
            for (uint32_t k = 0; k < tf && position <= UINT32_MAX; ++k) {
                // One gap of exactly the width's largest, the rest random below it.
                const uint64_t gap = k == tf / 2 ? largest : random() % (largest + 1);
                position += gap;
                if (position > UINT32_MAX) break;
                positions.push_back(static_cast<uint32_t>(position));
                position += 1;  // positions increase
            }
            builder.add(static_cast<uint32_t>(random() % 10), collection++ % kCollections, "w" + std::to_string(width),
                        positions);
        }
    }
    builder.add(9, 5, "zero", {0});
    builder.add(9, 6, "last", {UINT32_MAX});
    builder.add(9, 8, "ends", {0, UINT32_MAX});
    check_round_trip(builder.regrouped(true), true);
}

TEST_CASE("a batch message whose postings contradict its header or its documents is an error") {
    BatchBuilder builder(3);
    builder.add(0, 5, "alpha", {1});
    builder.add(2, 5, "alpha", {4});
    builder.add(1, 6, "beta", {2, 3});
    const RegroupedBatch batch = builder.regrouped(true);
    std::string message;
    postings_wire::encode_batch(batch, std::vector<uint32_t>(kCollections, 0), 0, true, message);
    CHECK_NOTHROW(postings_wire::decode_batch(message, true, 4));
    // Each single byte changed after the kind: decoded the same, or an error,
    // never a crash or a read past the message (run under valgrind to see).
    for (size_t at = 1; at < message.size(); ++at) {
        for (const int change : {1, 0x7f, 0x80}) {
            std::string damaged = message;
            damaged[at] = static_cast<char>(damaged[at] ^ change);
            try {
                postings_wire::decode_batch(damaged, true, 4);
            } catch (const Error& error) {
                CHECK(std::string(error.what()).find("rank 4") != std::string::npos);
            }
        }
    }
    // Fewer documents than the postings name.
    RegroupedBatch fewer = batch;
    fewer.docs.resize(2);
    std::string wrong;
    postings_wire::encode_batch(fewer, std::vector<uint32_t>(kCollections, 0), 0, true, wrong);
    CHECK_THROWS_AS(postings_wire::decode_batch(wrong, true, 4), Error);
}
