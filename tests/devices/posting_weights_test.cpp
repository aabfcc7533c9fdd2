// The host reference of GPU BM25 weighting (posting_weights_on_host,
// devices/gpu_weights.hpp) against the CPU weighting of store/impacts.hpp on
// generated indexes and the bundled sample: weights within 1e-12 relative
// (they are computed expression for expression alike), the same largest
// weight, and impacts identical to the ImpactQuantizer's at 1, 8 and 16
// bits; a given largest weight scales the impacts instead of the input's own.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "devices/gpu_weights.hpp"
#include "invidx/error.hpp"
#include "store/bm25.hpp"
#include "store/impacts.hpp"
#include "store/index_reader.hpp"
#include "support/collections.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"
#include "support/weight_input.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

void check_host_reference_equals_cpu(const std::filesystem::path& path, Bm25Parameters parameters) {
    const IndexReader index(path);
    REQUIRE(index.num_postings() > 0);
    const Bm25 bm25(parameters, index.num_documents(), index.average_length());
    const std::vector<double> norms = length_norms(index, bm25);
    const double cpu_max = max_posting_weight(index, bm25, norms);
    const std::vector<double> cpu = cpu_weights(index, bm25, norms);
    for (const unsigned bits : {1u, 8u, 16u}) {
        CAPTURE(bits);
        const GpuWeights host = posting_weights_on_host(weight_input(index, parameters, bits), true);
        CHECK(host.device == "host reference");
        REQUIRE(host.weights.size() == cpu.size());
        REQUIRE(host.impacts.size() == cpu.size());
        CHECK(host.max_weight == cpu_max);
        const ImpactQuantizer quantizer(cpu_max, bits);
        size_t far_weights = 0, other_impacts = 0;
        for (size_t p = 0; p < cpu.size(); ++p) {
            far_weights += std::abs(host.weights[p] - cpu[p]) > 1e-12 * cpu[p];
            other_impacts += host.impacts[p] != quantizer(cpu[p]);
        }
        CHECK(far_weights == 0);
        CHECK(other_impacts == 0);
    }
}

}  // namespace

TEST_CASE("posting_weights_on_host equals the CPU weighting on generated indexes at 1, 8 and 16 bits") {
    for (const uint32_t seed : {3u, 29u}) {
        CAPTURE(seed);
        TempDir dir;
        std::mt19937 random(seed);
        const auto words = random_words(random, 300);
        const auto path = build_text_index(dir, skewed_documents(random, words, 900, 2.0));
        check_host_reference_equals_cpu(path, {});
        check_host_reference_equals_cpu(path, {.k1 = 1.2, .b = 0.75});
    }
}

TEST_CASE("posting_weights_on_host equals the CPU weighting on the sample at 1, 8 and 16 bits") {
    TempDir dir;
    const auto path = dir / "sample";
    build_index(standard_pipeline({std::string(INVIDX_SOURCE_DIR) + "/sample/debian-docs.warc.gz"}, path, 2, 2));
    check_host_reference_equals_cpu(path, {});
}

TEST_CASE("posting_weights_on_host quantizes by a given largest weight and refuses malformed inputs") {
    GpuWeightInput input;
    input.term_offsets = {0, 2, 3};
    input.docids = {0, 1, 1};
    input.tfs = {1, 3, 2};
    input.document_lengths = {4, 6};
    input.average_length = 5.0;
    const GpuWeights own = posting_weights_on_host(input, true);
    REQUIRE(own.weights.size() == 3);
    // CONTENT.md §10 by hand: term 0 has df 2 of N 2, term 1 df 1.
    const auto norm = [](double dl) { return 0.9 * (1.0 - 0.4 + 0.4 * dl / 5.0); };
    const double idf0 = std::log(1.0 + 0.5 / 2.5), idf1 = std::log(1.0 + 1.5 / 1.5);
    CHECK(own.weights[0] == doctest::Approx(idf0 * 1.9 / (1.0 + norm(4))).epsilon(1e-12));
    CHECK(own.weights[1] == doctest::Approx(idf0 * 3 * 1.9 / (3.0 + norm(6))).epsilon(1e-12));
    CHECK(own.weights[2] == doctest::Approx(idf1 * 2 * 1.9 / (2.0 + norm(6))).epsilon(1e-12));
    CHECK(own.max_weight == std::max({own.weights[0], own.weights[1], own.weights[2]}));
    CHECK(*std::max_element(own.impacts.begin(), own.impacts.end()) == 255);

    // Twice the largest weight: no posting reaches the top half.
    input.max_weight = 2.0 * own.max_weight;
    const GpuWeights scaled = posting_weights_on_host(input);
    CHECK(scaled.max_weight == own.max_weight);  // still the input's own
    const ImpactQuantizer half(2.0 * own.max_weight, 8);
    for (size_t p = 0; p < 3; ++p) CHECK(scaled.impacts[p] == half(own.weights[p]));
    CHECK(*std::max_element(scaled.impacts.begin(), scaled.impacts.end()) == 128);

    input.max_weight = 0.0;
    CHECK_THROWS_AS(posting_weights_on_host(input), Error);
    input.max_weight.reset();
    input.tfs[1] = 0;
    CHECK_THROWS_AS(posting_weights_on_host(input), Error);
    input.tfs[1] = 3;
    input.term_offsets = {0, 3, 2};
    CHECK_THROWS_AS(posting_weights_on_host(input), Error);
    // No postings: no weights, largest weight 0.
    GpuWeightInput empty;
    empty.term_offsets = {0};
    CHECK(posting_weights_on_host(empty).impacts.empty());
    CHECK(posting_weights_on_host(empty).max_weight == 0.0);
}
