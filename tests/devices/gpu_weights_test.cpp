// GPU BM25 weighting (devices/gpu_weights.hpp) against the CPU's
// (store/impacts.hpp): every posting's weight within 1e-6 relative, the same
// largest weight, and impacts identical to the ImpactQuantizer's and to the
// impacts `invidx weight` stored in query.post, at 8 and 16 bits. Malformed
// inputs are refused in every build; a build without CUDA refuses all.
// The device comparisons are skipped without a CUDA device.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <span>
#include <vector>

#include "devices/gpu_devices.hpp"
#include "devices/gpu_weights.hpp"
#include "invidx/error.hpp"
#include "store/bm25.hpp"
#include "store/impacts.hpp"
#include "store/index_reader.hpp"
#include "store/merge.hpp"
#include "store/query_postings.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

// Every posting of the index, term by term, as gpu_posting_weights takes them.
GpuWeightInput weight_input(const IndexReader& index, Bm25Parameters parameters, unsigned bits) {
    GpuWeightInput input;
    input.term_offsets.push_back(0);
    for (uint64_t t = 0; t < index.term_count(); ++t) {
        const auto list = index.postings(t);
        input.docids.insert(input.docids.end(), list.docids.begin(), list.docids.end());
        input.tfs.insert(input.tfs.end(), list.tfs.begin(), list.tfs.end());
        input.term_offsets.push_back(input.docids.size());
    }
    for (uint32_t d = 0; d < index.num_documents(); ++d) input.document_lengths.push_back(index.document_length(d));
    input.average_length = index.average_length();
    input.k1 = parameters.k1;
    input.b = parameters.b;
    input.bits = bits;
    return input;
}

GpuWeightInput tiny_input() {
    GpuWeightInput input;
    input.term_offsets = {0, 2, 3};
    input.docids = {0, 1, 1};
    input.tfs = {1, 3, 2};
    input.document_lengths = {4, 6};
    input.average_length = 5.0;
    return input;
}

}  // namespace

TEST_CASE("gpu_posting_weights refuses malformed inputs, and everything without CUDA") {
    auto bad_offsets = tiny_input();
    bad_offsets.term_offsets = {0, 2, 2};  // does not end at the postings' count
    CHECK_THROWS_AS(gpu_posting_weights(bad_offsets), Error);
    auto bad_docid = tiny_input();
    bad_docid.docids[2] = 7;
    CHECK_THROWS_AS(gpu_posting_weights(bad_docid), Error);
    auto zero_tf = tiny_input();
    zero_tf.tfs[0] = 0;
    CHECK_THROWS_AS(gpu_posting_weights(zero_tf), Error);
    auto bad_bits = tiny_input();
    bad_bits.bits = 17;
    CHECK_THROWS_AS(gpu_posting_weights(bad_bits), Error);
#ifndef INVIDX_HAVE_CUDA
    CHECK_THROWS_WITH_AS(gpu_posting_weights(tiny_input()), doctest::Contains("without CUDA"), Error);
#endif
}

TEST_CASE("GPU weights equal the CPU's within 1e-6 and GPU impacts equal the stored ones, 8 and 16 bits") {
    if (list_gpus().devices.empty()) {
        MESSAGE("no CUDA device here: GPU weighting test skipped");
        return;
    }
    TempDir dir;
    std::mt19937 random(23);
    const auto words = random_words(random, 400);
    const auto path = build_text_index(dir, skewed_documents(random, words, 1500, 2.5));
    for (const unsigned bits : {8u, 16u}) {
        CAPTURE(bits);
        merge_runs(path, {.query_codec = "bp128", .impact_bits = bits});
        const IndexReader index(path);
        const QueryPostings layout(index);
        const Bm25 bm25(layout.parameters(), index.num_documents(), index.average_length());
        const GpuWeightInput input = weight_input(index, layout.parameters(), bits);
        const GpuWeights gpu = gpu_posting_weights(input, 0, true);
        REQUIRE(gpu.weights.size() == input.docids.size());
        REQUIRE(gpu.impacts.size() == input.docids.size());

        // The CPU's weights, its largest weight and its quantizer.
        const std::vector<double> norms = length_norms(index, bm25);
        const double cpu_max = max_posting_weight(index, bm25, norms);
        CHECK(std::abs(gpu.max_weight - cpu_max) <= 1e-6 * cpu_max);
        CHECK(layout.max_weight() == cpu_max);
        const ImpactQuantizer quantizer(cpu_max, bits);
        size_t mismatched_weights = 0, mismatched_impacts = 0, mismatched_stored = 0;
        std::vector<uint32_t> stored(128);
        for (uint64_t t = 0; t < index.term_count(); ++t) {
            const uint64_t first = input.term_offsets[t];
            const uint64_t count = input.term_offsets[t + 1] - first;
            std::vector<double> cpu(count);
            posting_weights(bm25, index.term(t).df, std::span(input.docids).subspan(first, count),
                            std::span(input.tfs).subspan(first, count), norms, cpu);
            for (uint64_t i = 0; i < count; ++i) {
                mismatched_weights += std::abs(gpu.weights[first + i] - cpu[i]) > 1e-6 * cpu[i];
                mismatched_impacts += gpu.impacts[first + i] != quantizer(cpu[i]);
            }
            // The impacts invidx weight stored, block by block.
            const QueryList list = layout.list(t);
            uint64_t at = first;
            for (size_t b = 0; b < list.blocks().size(); ++b) {
                const size_t n = list.blocks()[b].postings;
                list.decode_impacts(b, std::span(stored.data(), n));
                for (size_t i = 0; i < n; ++i) mismatched_stored += gpu.impacts[at + i] != stored[i];
                at += n;
            }
        }
        CHECK(mismatched_weights == 0);
        CHECK(mismatched_impacts == 0);
        CHECK(mismatched_stored == 0);
    }
}
