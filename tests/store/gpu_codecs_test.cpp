// GPU PForDelta and Rice decoding (devices/gpu_codecs.hpp) against the CPU
// codecs (store/codecs/): the same values, and the same docids after the
// prefix sum, for short and long units, huge gaps, equal values, many
// exceptions and the extreme bit widths; damaged bytes are refused; every
// pass is shown to an observer (the benchmark's timer) and decodes the
// same. GPU test cases (support/gpu_test.hpp).
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "devices/gpu_codecs.hpp"
#include "invidx/error.hpp"
#include "store/codecs/docid_gaps.hpp"
#include "store/codecs/pfor.hpp"
#include "store/codecs/registry.hpp"
#include "store/codecs/rice.hpp"
#include "support/gpu_test.hpp"

namespace {

using namespace invidx;
using codecs::Codec;
using Sequences = std::vector<std::vector<uint32_t>>;
using GpuDecode = GpuDecodeResult (*)(const GpuEncodedUnits&, bool, std::vector<uint32_t>*, GpuDecodePasses);

constexpr uint32_t kMax = std::numeric_limits<uint32_t>::max();

struct GpuCodec {
    const Codec& cpu;
    GpuDecode gpu;
};

std::vector<GpuCodec> both_codecs() {
    return {{codecs::find_codec("pfor"), &gpu_decode_pfor}, {codecs::find_codec("rice"), &gpu_decode_rice}};
}

// Every sequence as one unit; unit u's docids count from a first docid that
// is 0 for the first and arbitrary (wrapping past 2^32 is modular, as on the
// CPU) for the others.
GpuEncodedUnits encode_units(const Codec& codec, const Sequences& sequences) {
    GpuEncodedUnits units;
    std::mt19937 random(static_cast<uint32_t>(sequences.size()));
    for (const auto& sequence : sequences) {
        codec.encode(sequence, units.bytes);
        units.byte_ends.push_back(units.bytes.size());
        units.value_counts.push_back(static_cast<uint32_t>(sequence.size()));
        units.first_docids.push_back(units.first_docids.empty() ? 0 : static_cast<uint32_t>(random()));
    }
    return units;
}

// The GPU's values and docids equal the CPU decode of the same bytes, and
// the checksums are the sums of every unit's last value.
void check_against_cpu(const GpuCodec& codec, const Sequences& sequences) {
    CAPTURE(codec.cpu.name);
    const GpuEncodedUnits units = encode_units(codec.cpu, sequences);
    std::vector<uint32_t> expected_values, expected_docids;
    uint64_t values_checksum = 0, docids_checksum = 0;
    uint64_t begin = 0;
    for (size_t u = 0; u < sequences.size(); ++u) {
        std::vector<uint32_t> decoded(sequences[u].size());
        codec.cpu.decode(std::string_view(units.bytes).substr(begin, units.byte_ends[u] - begin), decoded);
        begin = units.byte_ends[u];
        REQUIRE(decoded == sequences[u]);
        expected_values.insert(expected_values.end(), decoded.begin(), decoded.end());
        values_checksum += decoded.back();
        codecs::gaps_to_docids(decoded, units.first_docids[u]);
        expected_docids.insert(expected_docids.end(), decoded.begin(), decoded.end());
        docids_checksum += decoded.back();
    }
    std::vector<uint32_t> values, docids;
    const GpuDecodeResult gaps = codec.gpu(units, false, &values, {3});  // the last of 3 passes
    const GpuDecodeResult summed = codec.gpu(units, true, &docids, {3});
    CHECK(gaps.integers == expected_values.size());
    CHECK(gaps.checksum == values_checksum);
    CHECK(summed.checksum == docids_checksum);
    REQUIRE(values.size() == expected_values.size());
    REQUIRE(docids.size() == expected_docids.size());
    for (size_t i = 0; i < values.size(); ++i) {
        CAPTURE(i);
        REQUIRE(values[i] == expected_values[i]);
        REQUIRE(docids[i] == expected_docids[i]);
    }
}

std::vector<uint32_t> geometric_gaps(size_t n, double mean, uint32_t seed) {
    std::mt19937 random(seed);
    std::geometric_distribution<uint32_t> gap(1.0 / mean);
    std::vector<uint32_t> values(n);
    for (auto& value : values) value = gap(random);
    return values;
}

// Values of 4 bits but one in every 1/share (at a random place in each
// window of that many) of any width from 5 to 32 bits: PForDelta exceptions
// whose high parts and position gaps have exceptions of their own.
std::vector<uint32_t> with_exceptions(size_t n, double share, uint32_t seed) {
    std::mt19937 random(seed);
    const auto window = static_cast<size_t>(1 / share + 0.5);
    std::vector<uint32_t> values(n);
    size_t wide_at = random() % window;
    for (size_t i = 0; i < n; ++i) {
        if (i % window == 0 && i > 0) wide_at = i + random() % window;
        if (i != wide_at) {
            values[i] = static_cast<uint32_t>(random() & 15);
            continue;
        }
        const uint32_t width = 5 + static_cast<uint32_t>(random() % 28);
        const uint32_t low = static_cast<uint32_t>(random()) & (width == 32 ? kMax : (1u << width) - 1);
        values[i] = low | (1u << (width - 1));
    }
    return values;
}

// Around a group of 128 and around the longest units decoded in shared
// memory (512 or 1024 values: devices/cuda/codecs/unit_decoder.cuh).
const std::vector<size_t> kLengths = {1,   2,   63,   64,   65,   127,  128,  129,  255,
                                      256, 511, 512, 513, 1000, 1024, 1025, 5000, 100000};

}  // namespace

GPU_TEST_CASE("gpu codecs: pfor and rice decode as the CPU for lengths 1 to 100000, values and docids") {
    for (const GpuCodec& codec : both_codecs()) {
        Sequences sequences;
        for (const size_t n : kLengths) {
            sequences.push_back(geometric_gaps(n, 1 + static_cast<double>(n % 97), static_cast<uint32_t>(n)));
        }
        check_against_cpu(codec, sequences);
        for (const size_t n : kLengths) check_against_cpu(codec, {geometric_gaps(n, 20, 7)});  // one unit a launch
    }
}

GPU_TEST_CASE("gpu codecs: huge gaps up to a docid range of 2^32 - 2") {
    for (const GpuCodec& codec : both_codecs()) {
        Sequences sequences;
        sequences.push_back({0, kMax - 2});        // docids 0 and 2^32 - 2
        sequences.push_back({kMax - 1});           // one docid, 2^32 - 2
        for (const size_t n : {size_t{127}, size_t{128}, size_t{129}, size_t{1000}, size_t{3000}}) {
            std::mt19937 random(static_cast<uint32_t>(n));
            std::vector<uint32_t> values(n, 0);
            values[random() % n] = kMax - 2 - static_cast<uint32_t>(n);  // one huge gap among small ones
            sequences.push_back(values);
            for (auto& value : values) value = static_cast<uint32_t>(random());  // any 32-bit values
            sequences.push_back(values);
        }
        check_against_cpu(codec, sequences);
    }
}

GPU_TEST_CASE("gpu codecs: all-equal values, b 0 and b 32") {
    for (const GpuCodec& codec : both_codecs()) {
        Sequences sequences;
        for (const size_t n : {size_t{1}, size_t{127}, size_t{128}, size_t{129}, size_t{1000}, size_t{2000}}) {
            for (const uint32_t value : {0u, 1u, 7u, 1u << 20, kMax - 1, kMax}) sequences.emplace_back(n, value);
        }
        check_against_cpu(codec, sequences);
    }
    // The widths the encoders chose are the extreme ones.
    CHECK(codecs::PForDelta::slot_bits(std::vector<uint32_t>(128, 0)) == 0);
    CHECK(codecs::PForDelta::slot_bits(std::vector<uint32_t>(128, kMax)) == 32);
    CHECK(codecs::Rice::parameter(std::vector<uint32_t>(128, 0)) == 0);
    CHECK(codecs::Rice::parameter(std::vector<uint32_t>(128, kMax)) == 31);
}

GPU_TEST_CASE("gpu codecs: pfor with many exceptions at every level, b 0 with exceptions") {
    const GpuCodec pfor = both_codecs()[0];
    Sequences sequences;
    for (const size_t n : {size_t{20}, size_t{128}, size_t{129}, size_t{1000}, size_t{1025}, size_t{20000}}) {
        for (const double share : {0.05, 0.1}) sequences.push_back(with_exceptions(n, share, static_cast<uint32_t>(n)));
        std::vector<uint32_t> mostly_zero(n, 0);  // b = 0, the exceptions hold every bit
        for (size_t i = 0; i < n; i += 13) mostly_zero[i] = static_cast<uint32_t>(i * 2654435761u) | 1;
        sequences.push_back(mostly_zero);
    }
    for (const auto& sequence : sequences) {
        std::string bytes;
        pfor.cpu.encode(sequence, bytes);
        CAPTURE(sequence.size());
        CHECK((static_cast<uint8_t>(bytes[0]) & 0x80) != 0);  // the values have exceptions
    }
    CHECK(codecs::PForDelta::slot_bits(sequences.back()) == 0);
    check_against_cpu(pfor, sequences);
    for (const auto& sequence : sequences) check_against_cpu(pfor, {sequence});
}

GPU_TEST_CASE("gpu codecs: many units of random lengths, as the blocks and lists of an index") {
    std::mt19937 random(5);
    Sequences sequences;
    for (int u = 0; u < 3000; ++u) {
        const size_t n = u % 10 == 0 ? 1 + random() % 4000 : 1 + random() % 128;
        sequences.push_back(u % 3 == 0 ? with_exceptions(n, 0.08, static_cast<uint32_t>(u))
                                       : geometric_gaps(n, 1 + random() % 300, static_cast<uint32_t>(u)));
    }
    for (const GpuCodec& codec : both_codecs()) check_against_cpu(codec, sequences);
}

GPU_TEST_CASE("gpu codecs: damaged bytes are refused, not decoded") {
    for (const GpuCodec& codec : both_codecs()) {
        CAPTURE(codec.cpu.name);
        for (const auto& sequence : {geometric_gaps(300, 30, 3), with_exceptions(300, 0.1, 4)}) {
            const GpuEncodedUnits good = encode_units(codec.cpu, {sequence});
            GpuEncodedUnits shorter = good;  // the last byte missing
            shorter.bytes.pop_back();
            shorter.byte_ends[0] -= 1;
            // Named after the device that refused them.
            CHECK_THROWS_WITH_AS(codec.gpu(shorter, false, nullptr, {2}), doctest::Contains("gpu:0 ("), Error);
            GpuEncodedUnits longer = good;  // a byte after the encoding
            longer.bytes.push_back('\xFF');
            longer.byte_ends[0] += 1;
            CHECK_THROWS_AS(codec.gpu(longer, false, nullptr, {2}), Error);
            GpuEncodedUnits wide = good;  // a bit width over the limit
            wide.bytes[0] = static_cast<char>(40);
            CHECK_THROWS_AS(codec.gpu(wide, false, nullptr, {2}), Error);
        }
    }
}

GPU_TEST_CASE("gpu codecs: the observer sees every pass, and every pass decodes the same") {
    // Counts the calls, and that they alternate: begins, ends, begins, ...
    struct CountingObserver final : GpuPassObserver {
        unsigned begun = 0, ended = 0;
        bool alternate = true;
        void pass_begins(CUstream_st*) override {
            alternate = alternate && begun == ended;
            ++begun;
        }
        void pass_ends(CUstream_st*) override {
            ++ended;
            alternate = alternate && begun == ended;
        }
    };
    for (const GpuCodec& codec : both_codecs()) {
        CAPTURE(codec.cpu.name);
        const GpuEncodedUnits units = encode_units(codec.cpu, {geometric_gaps(1000, 30, 9), geometric_gaps(77, 3, 10)});
        std::vector<uint32_t> once_values, passes_values;
        const GpuDecodeResult once = codec.gpu(units, true, &once_values, {});
        CountingObserver observer;
        const GpuDecodeResult four = codec.gpu(units, true, &passes_values, {4, &observer});
        CHECK(observer.begun == 4);
        CHECK(observer.ended == 4);
        CHECK(observer.alternate);
        CHECK(four.checksum == once.checksum);  // zeroed before every pass
        CHECK(passes_values == once_values);
        CHECK_THROWS_AS(codec.gpu(units, true, nullptr, {0}), Error);
    }
    // One bp128 group whose docids count from 5: the checksum is its last docid.
    const std::vector<uint32_t> gaps = geometric_gaps(128, 10, 11);
    std::string group;
    codecs::find_codec("bp128").encode(gaps, group);
    uint64_t last_docid = 5;
    for (size_t i = 0; i < gaps.size(); ++i) last_docid += gaps[i] + (i == 0 ? 0 : 1);
    CountingObserver observer;
    CHECK(gpu_decode_bp128(group, {0}, {5}, true, {2, &observer}).checksum == last_docid);
    CHECK(observer.begun == 2);
    CHECK(observer.ended == 2);
    CHECK(gpu_decode_bp128(group, {0}, {5}, true).checksum == last_docid);
}
