// Quantized BM25 impacts (store/impacts.hpp, query.post version 2): the
// weights against CONTENT.md §10 written out in double precision, the quantizer's
// rules, and what `invidx weight` stores against both.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "invidx/error.hpp"
#include "store/impacts.hpp"
#include "store/index_reader.hpp"
#include "store/merge.hpp"
#include "store/query_postings.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

// CONTENT.md §10 for one posting, written out without store/bm25.hpp.
double spec_weight(double documents, double df, double tf, double dl, double avgdl, double k1, double b) {
    const double idf = std::log(1.0 + (documents - df + 0.5) / (df + 0.5));
    return idf * (tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * dl / avgdl)));
}

std::filesystem::path weighted_index(const TempDir& dir, std::mt19937& random, std::string_view codec, unsigned bits,
                                     Bm25Parameters parameters = {}) {
    const auto words = random_words(random, 400);
    const auto index = build_text_index(dir, skewed_documents(random, words, 900, 3.0));
    merge_runs(index, {.query_codec = std::string(codec), .query_parameters = parameters, .impact_bits = bits});
    return index;
}

}  // namespace

TEST_CASE("posting weights equal CONTENT.md §10 in double precision within 1e-12 relative") {
    TempDir dir;
    std::mt19937 random(5);
    const auto words = random_words(random, 300);
    const auto path = build_text_index(dir, skewed_documents(random, words, 600, 2.5));
    const IndexReader index(path);
    for (const Bm25Parameters parameters : {Bm25Parameters{}, Bm25Parameters{.k1 = 1.2, .b = 0.75}}) {
        const Bm25 bm25(parameters, index.num_documents(), index.average_length());
        const auto norms = length_norms(index, bm25);
        double largest = 0.0;
        size_t postings = 0;
        for (uint64_t term = 0; term < index.term_count(); ++term) {
            const auto list = index.postings(term);
            std::vector<double> weights(list.docids.size());
            posting_weights(bm25, index.term(term).df, list.docids, list.tfs, norms, weights);
            for (size_t i = 0; i < weights.size(); ++i) {
                const double expected = spec_weight(static_cast<double>(index.num_documents()), static_cast<double>(index.term(term).df),
                                                    list.tfs[i], index.document(list.docids[i]).length,
                                                    index.average_length(), parameters.k1, parameters.b);
                REQUIRE(expected > 0.0);
                CHECK(std::abs(weights[i] - expected) <= 1e-12 * expected);
                largest = std::max(largest, weights[i]);
            }
            postings += weights.size();
        }
        CHECK(postings == index.num_postings());
        CHECK(max_posting_weight(index, bm25, norms) == largest);
    }
}

TEST_CASE("the quantizer maps the largest weight to 2^bits - 1, every weight to at least 1, monotonically") {
    std::mt19937_64 random(9);
    for (unsigned bits = kMinImpactBits; bits <= kMaxImpactBits; ++bits) {
        CAPTURE(bits);
        const double max_weight = 3.0 + static_cast<double>(bits) * 1.37;
        const ImpactQuantizer quantize(max_weight, bits);
        const uint32_t top = (uint32_t{1} << bits) - 1;
        CHECK(quantize.max_impact() == top);
        CHECK(quantize(max_weight) == top);
        CHECK(quantize(std::numeric_limits<double>::denorm_min()) == 1);
        CHECK(quantize(max_weight * 1e-9) == 1);
        std::uniform_real_distribution<double> weight(0.0, max_weight);
        std::vector<double> weights(2000);
        for (double& w : weights) w = weight(random);
        std::sort(weights.begin(), weights.end());
        uint32_t previous = 1;
        for (const double w : weights) {
            const uint32_t impact = quantize(w);
            CHECK(impact >= previous);  // monotone
            CHECK(impact >= 1);
            CHECK(impact <= top);
            // Ceiling: the impact's bucket ((i-1)/range, i/range] holds the weight.
            CHECK(impact == std::max<uint32_t>(1, static_cast<uint32_t>(std::ceil(w / max_weight * top))));
            previous = impact;
        }
    }
    // Half the range: the upper half of the weights gets the upper half of the impacts.
    const ImpactQuantizer eight(10.0, 8);
    CHECK(eight(5.0) == 128);  // ceil(127.5)
    CHECK(eight(5.0 - 1e-9) == 128);
    CHECK(eight(9.99) == 255);
    CHECK_THROWS_AS(ImpactQuantizer(1.0, 0), Error);
    CHECK_THROWS_AS(ImpactQuantizer(1.0, 17), Error);
    CHECK_THROWS_AS(ImpactQuantizer(0.0, 8), Error);
    CHECK_THROWS_AS(ImpactQuantizer(std::numeric_limits<double>::infinity(), 8), Error);
}

TEST_CASE("invidx weight's stored impacts: the quantized weights, block maxima exact, every posting at least 1") {
    for (const auto& [codec, bits] : {std::pair<std::string, unsigned>{"bp128", 8}, {"vbyte", 4}, {"pfor", 12}, {"rice", 1}}) {
        CAPTURE(codec);
        CAPTURE(bits);
        TempDir dir;
        std::mt19937 random(17);
        const Bm25Parameters parameters{.k1 = 1.1, .b = 0.5};
        const auto path = weighted_index(dir, random, codec, bits, parameters);
        const IndexReader index(path);
        const QueryPostings layout(index);
        REQUIRE(layout.has_impacts());
        CHECK(layout.impact_bits() == bits);
        CHECK(layout.parameters().k1 == parameters.k1);
        CHECK(layout.parameters().b == parameters.b);
        const uint32_t top = (uint32_t{1} << bits) - 1;

        const Bm25 bm25(parameters, index.num_documents(), index.average_length());
        const auto norms = length_norms(index, bm25);
        CHECK(layout.max_weight() == max_posting_weight(index, bm25, norms));
        const ImpactQuantizer quantize(layout.max_weight(), bits);
        uint32_t largest = 0;
        size_t off_by_rounding = 0;
        for (uint64_t term = 0; term < index.term_count(); ++term) {
            const auto postings = index.postings(term);
            const auto list = layout.list(term);
            CHECK(list.decode().docids == postings.docids);  // tfs, impacts and their bounds checked too
            std::vector<uint32_t> impacts(128);
            size_t start = 0;
            uint32_t list_max = 0;
            for (size_t k = 0; k < list.blocks().size(); ++k) {
                const auto& block = list.blocks()[k];
                const std::span block_impacts(impacts.data(), block.postings);
                list.decode_impacts(k, block_impacts);
                uint32_t block_max = 0;
                for (size_t i = 0; i < block.postings; ++i) {
                    const uint32_t docid = postings.docids[start + i];
                    const uint32_t tf = postings.tfs[start + i];
                    CHECK(block_impacts[i] >= 1);
                    CHECK(block_impacts[i] == quantize(bm25.score(bm25.idf(index.term(term).df), tf, norms[docid])));
                    // Against CONTENT.md §10 written out: the same, but at a bucket's edge.
                    const double w = spec_weight(static_cast<double>(index.num_documents()), static_cast<double>(index.term(term).df), tf,
                                                 index.document(docid).length, index.average_length(), parameters.k1, parameters.b);
                    const auto direct = static_cast<uint32_t>(std::max(1.0, std::ceil(w / layout.max_weight() * top)));
                    off_by_rounding += direct != block_impacts[i];
                    CHECK(std::abs(static_cast<int64_t>(direct) - static_cast<int64_t>(block_impacts[i])) <= 1);
                    block_max = std::max(block_max, block_impacts[i]);
                }
                CHECK(block.max_impact == block_max);
                list_max = std::max(list_max, block_max);
                start += block.postings;
            }
            CHECK(list.max_impact() == list_max);
            largest = std::max(largest, list_max);
        }
        CHECK(largest == top);  // the largest weight's posting
        CHECK(off_by_rounding <= index.num_postings() / 1000);
    }
}

TEST_CASE("a query layout without impacts reads as before, and weighting keeps the lists and block maxima") {
    TempDir dir;
    std::mt19937 random(3);
    const auto words = random_words(random, 200);
    const auto path = build_text_index(dir, skewed_documents(random, words, 400, 2.0));
    merge_runs(path, {.query_codec = "bp128"});
    std::vector<std::vector<QueryBlock>> before;
    {
        const IndexReader index(path);
        const QueryPostings layout(index);
        CHECK_FALSE(layout.has_impacts());
        CHECK(layout.impact_bits() == 0);
        const auto list = layout.list(0);
        CHECK(list.max_impact() == 0);
        std::vector<uint32_t> out(list.blocks()[0].postings);
        CHECK_THROWS_AS(list.decode_impacts(0, out), Error);
        for (uint64_t term = 0; term < index.term_count(); ++term) {
            const auto list = layout.list(term);  // the blocks live in it
            before.emplace_back(list.blocks().begin(), list.blocks().end());
        }
    }
    merge_runs(path, {.query_codec = "bp128", .impact_bits = 8});
    const IndexReader index(path);
    const QueryPostings layout(index);
    CHECK(layout.has_impacts());
    for (uint64_t term = 0; term < index.term_count(); ++term) {
        const auto list = layout.list(term);
        const auto blocks = list.blocks();
        REQUIRE(blocks.size() == before[term].size());
        for (size_t k = 0; k < blocks.size(); ++k) {
            CHECK(blocks[k].last_docid == before[term][k].last_docid);
            CHECK(blocks[k].max_tf_part == before[term][k].max_tf_part);
            CHECK(blocks[k].max_impact >= 1);
        }
    }
    // Impacts need the query layout; bad bits fail before anything is written.
    CHECK_THROWS_AS(merge_runs(path, {.impact_bits = 8}), Error);
    CHECK_THROWS_AS(merge_runs(path, {.query_codec = "bp128", .impact_bits = 0}), Error);
    CHECK(QueryPostings(IndexReader(path)).has_impacts());
}

TEST_CASE("precomputed impacts are stored as given: the computed ones give the same bytes, misfits are refused") {
    TempDir dir;
    std::mt19937 random(11);
    const Bm25Parameters parameters{.k1 = 1.0, .b = 0.5};
    const auto computed = weighted_index(dir, random, "pfor", 6, parameters);
    const std::string computed_bytes = read_file(computed / "query.post");

    // The impacts the writer quantized, read back, and its largest weight.
    PostingImpacts impacts;
    {
        const IndexReader index(computed);
        const QueryPostings layout(index);
        impacts.bits = 6;
        impacts.max_weight = layout.max_weight();
        impacts.term_offsets.push_back(0);
        std::vector<uint32_t> block(128);
        for (uint64_t term = 0; term < index.term_count(); ++term) {
            const auto list = layout.list(term);
            for (size_t k = 0; k < list.blocks().size(); ++k) {
                const std::span values(block.data(), list.blocks()[k].postings);
                list.decode_impacts(k, values);
                impacts.impacts.insert(impacts.impacts.end(), values.begin(), values.end());
            }
            impacts.term_offsets.push_back(impacts.impacts.size());
        }
    }
    const auto given = dir / "given";
    std::filesystem::copy(computed, given, std::filesystem::copy_options::recursive);
    merge_runs(given, {.query_codec = "pfor", .query_parameters = parameters, .impacts = &impacts});
    CHECK(read_file(given / "query.post") == computed_bytes);

    // Another largest weight is stored as given (the header differs, nothing else is checked against it).
    PostingImpacts scaled = impacts;
    scaled.max_weight *= 2.0;
    merge_runs(given, {.query_codec = "pfor", .query_parameters = parameters, .impacts = &scaled});
    CHECK(QueryPostings(IndexReader(given)).max_weight() == scaled.max_weight);

    // Misfits fail, and the index stays as it was.
    const std::string before = read_file(given / "query.post");
    PostingImpacts out_of_range = impacts;
    out_of_range.impacts[out_of_range.impacts.size() / 2] = 64;  // 6 bits hold 1..63
    CHECK_THROWS_WITH_AS(merge_runs(given, {.query_codec = "pfor", .impacts = &out_of_range}), doctest::Contains("not in 1..63"), Error);
    out_of_range.impacts[out_of_range.impacts.size() / 2] = 0;
    CHECK_THROWS_AS(merge_runs(given, {.query_codec = "pfor", .impacts = &out_of_range}), Error);
    PostingImpacts shifted = impacts;
    shifted.term_offsets[1] += 1;  // term 0 one posting longer, term 1 one shorter
    CHECK_THROWS_WITH_AS(merge_runs(given, {.query_codec = "pfor", .impacts = &shifted}), doctest::Contains("term 0 has"), Error);
    PostingImpacts short_table = impacts;
    short_table.term_offsets.pop_back();
    CHECK_THROWS_AS(merge_runs(given, {.query_codec = "pfor", .impacts = &short_table}), Error);
    PostingImpacts no_weight = impacts;
    no_weight.max_weight = 0.0;
    CHECK_THROWS_AS(merge_runs(given, {.query_codec = "pfor", .impacts = &no_weight}), Error);
    CHECK_THROWS_AS(merge_runs(given, {.query_codec = "pfor", .impact_bits = 6, .impacts = &impacts}), Error);
    CHECK_THROWS_AS(merge_runs(given, {.impacts = &impacts}), Error);  // no query codec
    CHECK(read_file(given / "query.post") == before);
}
