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
