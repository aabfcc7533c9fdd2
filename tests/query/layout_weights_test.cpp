// Impacts from the query layout's compressed lists (query/layout_weights.hpp,
// devices/gpu_layout_weights.hpp): the CPU path, the host reference of the
// GPU's input and the GPU itself all give the impacts `invidx weight`
// stored, at 8 and 16 bits and with non-default k1 and b; malformed inputs
// are refused; a layout in another codec is refused by name. The device
// comparisons are GPU test cases (support/gpu_test.hpp).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "devices/gpu_layout_weights.hpp"
#include "devices/layout_block_walk.hpp"
#include "invidx/error.hpp"
#include "query/layout_weights.hpp"
#include "store/index_reader.hpp"
#include "store/merge.hpp"
#include "store/query_postings.hpp"
#include "support/gpu_test.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

// The impacts `invidx weight` stored in query.post, term by term.
std::vector<uint16_t> stored_impacts(const IndexReader& index, const QueryPostings& layout) {
    std::vector<uint16_t> out;
    std::vector<uint32_t> block(128);
    for (uint64_t t = 0; t < index.term_count(); ++t) {
        const QueryList list = layout.list(t);
        for (size_t k = 0; k < list.blocks().size(); ++k) {
            const size_t n = list.blocks()[k].postings;
            list.decode_impacts(k, std::span(block.data(), n));
            out.insert(out.end(), block.begin(), block.begin() + n);
        }
    }
    return out;
}

size_t differences(const std::vector<uint16_t>& a, const std::vector<uint16_t>& b) {
    size_t count = a.size() == b.size() ? 0 : 1;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) count += a[i] != b[i];
    return count;
}

std::filesystem::path skewed_index(TempDir& dir, unsigned seed) {
    std::mt19937 random(seed);
    const auto words = random_words(random, 400);
    return build_text_index(dir, skewed_documents(random, words, 1500, 2.5));
}

}  // namespace

TEST_CASE("impacts from the query layout: CPU path and host reference equal the stored ones, 8 and 16 bits") {
    TempDir dir;
    const auto path = skewed_index(dir, 41);
    for (const unsigned bits : {8u, 16u}) {
        CAPTURE(bits);
        merge_runs(path, {.query_codec = "bp128", .query_parameters = {.k1 = 1.1, .b = 0.6}, .impact_bits = bits});
        const IndexReader index(path);
        const QueryPostings layout(index);
        const std::vector<uint16_t> stored = stored_impacts(index, layout);
        REQUIRE(stored.size() == index.num_postings());

        std::vector<uint16_t> cpu(index.num_postings());
        CHECK(layout_impacts_on_cpu(index, layout, bits, std::span(cpu)) == layout.max_weight());
        CHECK(differences(cpu, stored) == 0);
        if (bits == 8) {
            std::vector<uint8_t> narrow(index.num_postings());
            layout_impacts_on_cpu(index, layout, bits, std::span(narrow));
            CHECK(differences(std::vector<uint16_t>(narrow.begin(), narrow.end()), stored) == 0);
        } else {
            std::vector<uint8_t> narrow(index.num_postings());
            CHECK_THROWS_AS(layout_impacts_on_cpu(index, layout, bits, std::span(narrow)), Error);
        }

        const GpuLayoutWeightInput input = layout_weight_input(index, layout, bits);
        CHECK(input.k1 == 1.1);
        CHECK(input.b == 0.6);
        CHECK(input.entry_bytes == 28);  // a weighted layout: impacts follow each block's tfs
        std::vector<uint16_t> host(index.num_postings());
        CHECK(layout_impacts_on_host(input, host) == layout.max_weight());
        CHECK(differences(host, stored) == 0);

        // Quantized by a given largest weight instead (chunks of one index).
        GpuLayoutWeightInput scaled = input;
        scaled.max_weight = 2 * layout.max_weight();
        std::vector<uint16_t> halved(index.num_postings());
        layout_impacts_on_host(scaled, halved);
        uint32_t largest = 0;
        for (const uint16_t impact : halved) largest = std::max<uint32_t>(largest, impact);
        CHECK(largest == ((1u << bits) - 1 + 1) / 2);  // ceil(range / 2)
    }
    // An unweighted layout (version 1, 20-byte entries) gives the same impacts.
    merge_runs(path, {.query_codec = "bp128", .query_parameters = {.k1 = 1.1, .b = 0.6}});
    const IndexReader index(path);
    const QueryPostings layout(index);
    const GpuLayoutWeightInput input = layout_weight_input(index, layout, 16);
    CHECK(input.entry_bytes == 20);
    std::vector<uint16_t> host(index.num_postings()), cpu(index.num_postings());
    layout_impacts_on_host(input, host);
    layout_impacts_on_cpu(index, layout, 16, std::span(cpu));
    CHECK(differences(host, cpu) == 0);
}

namespace {

// The input with its file bytes copied, so that a test may damage them.
struct OwnedInput {
    std::vector<unsigned char> bytes;
    GpuLayoutWeightInput input;
    explicit OwnedInput(const GpuLayoutWeightInput& from) : bytes(from.file, from.file + from.file_bytes), input(from) {
        input.file = bytes.data();
    }
    // The first list's first block entry, field at `offset`.
    void put_entry_u32(size_t offset, uint32_t value) {
        const uint64_t first_list = layout_walk::load_u64(bytes.data() + input.table_offset);
        for (int i = 0; i < 4; ++i) bytes[first_list + offset + i] = static_cast<unsigned char>(value >> (8 * i));
    }
};

// Damaged inputs, each handed to `refused(bad, words)`, which checks that
// it is refused with an error containing `words`.
template <class Refused>
void check_refusals(const GpuLayoutWeightInput& input, Refused refused) {
    auto bad_entry = input;
    bad_entry.entry_bytes = 24;
    refused(bad_entry, "20 or 28");
    auto bad_table = input;
    bad_table.table_offset = input.file_bytes;
    refused(bad_table, "list offsets");
    auto bad_bits = input;
    bad_bits.bits = 17;
    refused(bad_bits, "bits");
    auto few_documents = input;
    few_documents.document_lengths.resize(input.document_lengths.size() / 2);
    refused(few_documents, "past the");

    OwnedInput grown(input);
    grown.put_entry_u32(4, 1u << 20);  // the first block's docid bytes: past the list
    refused(grown.input, "do not add up");
    OwnedInput reordered(input);
    reordered.put_entry_u32(0, 0);  // the first block's last docid: no room for its postings
    refused(reordered.input, "last docid");
}

}  // namespace

TEST_CASE("impacts from the query layout: malformed inputs, damaged lists and other codecs are refused") {
    TempDir dir;
    const auto path = skewed_index(dir, 43);
    merge_runs(path, {.query_codec = "bp128", .impact_bits = 8});
    const IndexReader index(path);
    const QueryPostings layout(index);
    const GpuLayoutWeightInput input = layout_weight_input(index, layout, 8);
    std::vector<uint16_t> out(index.num_postings());
    check_refusals(input, [&](const GpuLayoutWeightInput& bad, const char* words) {
        CHECK_THROWS_WITH_AS(layout_impacts_on_host(bad, out), doctest::Contains(words), Error);
    });
    CHECK_NOTHROW(check_layout_weight_input(input, out.size(), true));
    auto wide_bits = input;
    wide_bits.bits = 9;
    CHECK_THROWS_AS(check_layout_weight_input(wide_bits, out.size(), true), Error);
    CHECK_NOTHROW(check_layout_weight_input(wide_bits, out.size(), false));

    std::vector<uint16_t> short_out(out.size() - 1);
    CHECK_THROWS_AS(layout_impacts_on_host(input, short_out), Error);
#ifndef INVIDX_HAVE_CUDA
    CHECK_THROWS_WITH_AS(gpu_layout_impacts(input, out.data(), out.size()), doctest::Contains("without CUDA"), Error);
#endif

    merge_runs(path, {.query_codec = "vbyte"});
    const IndexReader vbyte_index(path);
    const QueryPostings vbyte_layout(vbyte_index);
    CHECK_THROWS_WITH_AS(layout_weight_input(vbyte_index, vbyte_layout, 8), doctest::Contains("vbyte"), Error);
}

GPU_TEST_CASE("gpu_layout_impacts refuses the malformed inputs and damaged lists the host reference refuses") {
    TempDir dir;
    const auto path = skewed_index(dir, 43);
    merge_runs(path, {.query_codec = "bp128", .impact_bits = 8});
    const IndexReader index(path);
    const QueryPostings layout(index);
    std::vector<uint16_t> out(index.num_postings());
    check_refusals(layout_weight_input(index, layout, 8), [&](const GpuLayoutWeightInput& bad, const char* words) {
        CHECK_THROWS_WITH_AS(gpu_layout_impacts(bad, out.data(), out.size(), 0), doctest::Contains(words), Error);
    });
}

GPU_TEST_CASE("gpu_layout_impacts equals the stored impacts, 8 and 16 bits, in 8- and 16-bit outputs") {
    TempDir dir;
    const auto path = skewed_index(dir, 47);
    for (const unsigned bits : {8u, 16u}) {
        CAPTURE(bits);
        merge_runs(path, {.query_codec = "bp128", .query_parameters = {.k1 = 1.1, .b = 0.6}, .impact_bits = bits});
        const IndexReader index(path);
        const QueryPostings layout(index);
        const GpuLayoutWeightInput input = layout_weight_input(index, layout, bits);
        const std::vector<uint16_t> stored = stored_impacts(index, layout);
        std::vector<uint16_t> gpu(index.num_postings());
        const GpuLayoutImpacts result = gpu_layout_impacts(input, gpu.data(), gpu.size(), 0);
        CHECK(std::abs(result.max_weight - layout.max_weight()) <= 1e-6 * layout.max_weight());
        CHECK(differences(gpu, stored) == 0);
        CHECK(result.device.rfind("gpu:0", 0) == 0);
        CHECK(result.blocks > index.term_count());  // lists longer than one block
        if (bits == 8) {
            std::vector<uint8_t> narrow(index.num_postings());
            gpu_layout_impacts(input, narrow.data(), narrow.size(), 0);
            CHECK(differences(std::vector<uint16_t>(narrow.begin(), narrow.end()), stored) == 0);
        } else {
            std::vector<uint8_t> narrow(index.num_postings());
            CHECK_THROWS_AS(gpu_layout_impacts(input, narrow.data(), narrow.size(), 0), Error);
        }
    }
}
