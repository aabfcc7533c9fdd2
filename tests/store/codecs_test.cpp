#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "invidx/error.hpp"
#include "store/codecs/bit_packing.hpp"
#include "store/codecs/pfor.hpp"
#include "store/codecs/registry.hpp"
#include "store/codecs/rice.hpp"

namespace {

using invidx::codecs::Codec;

constexpr uint32_t kMax = std::numeric_limits<uint32_t>::max();

std::vector<uint32_t> decode_all(const Codec& codec, const std::string& bytes, size_t n) {
    std::vector<uint32_t> decoded(n, 0xDEADBEEFu);
    codec.decode(bytes, decoded);
    return decoded;
}

void check_round_trip(const Codec& codec, const std::vector<uint32_t>& values) {
    std::string bytes = "prefix";  // encode appends
    codec.encode(values, bytes);
    CHECK(bytes.substr(0, 6) == "prefix");
    const std::string encoded = bytes.substr(6);
    CHECK(decode_all(codec, encoded, values.size()) == values);
}

// Gaps of a docid list: mostly small, geometric-like, as in real postings.
std::vector<uint32_t> random_gaps(size_t n, uint32_t mean, uint32_t seed) {
    std::mt19937 random(seed);
    std::geometric_distribution<uint32_t> gap(1.0 / mean);
    std::vector<uint32_t> values(n);
    for (auto& value : values) value = gap(random);
    return values;
}

std::vector<uint32_t> uniform_values(size_t n, uint32_t max, uint32_t seed) {
    std::mt19937 random(seed);
    std::uniform_int_distribution<uint32_t> any(0, max);
    std::vector<uint32_t> values(n);
    for (auto& value : values) value = any(random);
    return values;
}

// The sequences every codec must round-trip: the block boundaries (1, 127,
// 128, 129), several blocks, huge gaps, all-equal values.
std::vector<std::pair<std::string, std::vector<uint32_t>>> test_sequences() {
    std::vector<std::pair<std::string, std::vector<uint32_t>>> sequences;
    sequences.emplace_back("empty", std::vector<uint32_t>{});
    for (const size_t n : {1, 2, 3, 31, 32, 33, 127, 128, 129, 255, 256, 257, 1000, 5000}) {
        sequences.emplace_back("gaps n=" + std::to_string(n), random_gaps(n, 8, static_cast<uint32_t>(n)));
        sequences.emplace_back("wide gaps n=" + std::to_string(n), random_gaps(n, 100000, static_cast<uint32_t>(n + 1)));
        sequences.emplace_back("uniform 32-bit n=" + std::to_string(n), uniform_values(n, kMax, static_cast<uint32_t>(n + 2)));
    }
    sequences.emplace_back("one 2^32-1", std::vector<uint32_t>{kMax});
    sequences.emplace_back("one zero", std::vector<uint32_t>{0});
    for (const size_t n : {127, 128, 129, 1000}) {
        auto huge_among_small = random_gaps(n, 3, 7);
        huge_among_small[0] = kMax;
        huge_among_small[n / 2] = kMax - 1;
        huge_among_small[n - 1] = uint32_t{1} << 31;
        sequences.emplace_back("huge gaps among small n=" + std::to_string(n), huge_among_small);
        for (const uint32_t value : {0u, 1u, 7u, 1u << 20, kMax}) {
            sequences.emplace_back("all " + std::to_string(value) + " n=" + std::to_string(n),
                                   std::vector<uint32_t>(n, value));
        }
    }
    // Every bit width in one list: one value of each width, then per block.
    std::vector<uint32_t> widths;
    for (uint32_t b = 0; b <= 32; ++b) {
        for (int k = 0; k < 128; ++k) widths.push_back(b == 0 ? 0 : (b == 32 ? kMax - k : (1u << (b - 1)) + k % (1u << (b - 1))));
    }
    sequences.emplace_back("each width", widths);
    return sequences;
}

}  // namespace

TEST_CASE("codec registry knows every codec by name and lists them for a bad one") {
    CHECK(invidx::codecs::codec_names() == "vbyte, pfor, rice, bp128");
    for (const Codec& codec : invidx::codecs::all_codecs()) {
        CHECK(&invidx::codecs::find_codec(codec.name) == &codec);
        CHECK(!codec.description.empty());
    }
    try {
        (void)invidx::codecs::find_codec("pfordelta");
        FAIL("expected an error");
    } catch (const invidx::Error& error) {
        CHECK(std::string(error.what()) == "unknown codec 'pfordelta'; known: vbyte, pfor, rice, bp128");
    }
}

TEST_CASE("codec round trips: lengths 0, 1, 127, 128, 129, ..., huge gaps, all-equal values") {
    const auto sequences = test_sequences();
    for (const Codec& codec : invidx::codecs::all_codecs()) {
        for (const auto& [what, values] : sequences) {
            CAPTURE(codec.name);
            CAPTURE(what);
            check_round_trip(codec, values);
        }
    }
}

TEST_CASE("codec round trips block by block, as the benchmark and the query layout encode") {
    const auto values = random_gaps(1000, 20, 99);
    for (const Codec& codec : invidx::codecs::all_codecs()) {
        CAPTURE(codec.name);
        std::string bytes;
        std::vector<size_t> ends;
        for (size_t start = 0; start < values.size(); start += 128) {
            const size_t n = std::min<size_t>(128, values.size() - start);
            codec.encode(std::span(values).subspan(start, n), bytes);
            ends.push_back(bytes.size());
        }
        std::vector<uint32_t> decoded(values.size());
        size_t begin = 0;
        for (size_t block = 0; block < ends.size(); ++block) {
            const size_t start = block * 128;
            const size_t n = std::min<size_t>(128, values.size() - start);
            codec.decode(std::string_view(bytes).substr(begin, ends[block] - begin),
                         std::span(decoded).subspan(start, n));
            begin = ends[block];
        }
        CHECK(decoded == values);
    }
}

TEST_CASE("codec decoding of truncated or extended bytes is a FormatError") {
    const std::vector<std::vector<uint32_t>> inputs = {
        random_gaps(1, 8, 1), random_gaps(129, 8, 2), random_gaps(300, 1000, 3), {kMax, 0, 5, kMax, 1}};
    for (const Codec& codec : invidx::codecs::all_codecs()) {
        for (const auto& values : inputs) {
            CAPTURE(codec.name);
            CAPTURE(values.size());
            std::string bytes;
            codec.encode(values, bytes);
            for (size_t size = 0; size < bytes.size(); ++size) {
                CAPTURE(size);
                CHECK_THROWS_AS(decode_all(codec, bytes.substr(0, size), values.size()), invidx::FormatError);
            }
            CHECK_THROWS_AS(decode_all(codec, bytes + std::string(1, '\0'), values.size()), invidx::FormatError);
            CHECK_THROWS_AS(decode_all(codec, bytes + "\x81", values.size()), invidx::FormatError);
            // Bytes for no value at all are damage too.
            CHECK_THROWS_AS(decode_all(codec, bytes, 0), invidx::FormatError);
        }
    }
}

TEST_CASE("codec decoding of damaged bytes throws FormatError or returns values, never crashes") {
    const auto values = random_gaps(300, 50, 5);
    for (const Codec& codec : invidx::codecs::all_codecs()) {
        CAPTURE(codec.name);
        std::string bytes;
        codec.encode(values, bytes);
        for (size_t at = 0; at < bytes.size(); ++at) {
            for (const unsigned char damage : {0x00, 0xFF, 0x21, 0x80}) {
                std::string damaged = bytes;
                damaged[at] = static_cast<char>(damage);
                try {
                    (void)decode_all(codec, damaged, values.size());
                } catch (const invidx::FormatError& error) {
                    CHECK(std::string(error.what()).find("codec '" + std::string(codec.name) + "'") != std::string::npos);
                }
            }
        }
    }
}

TEST_CASE("codec pfor chooses one b that holds 90% of the values, exceptions keep their high bits") {
    std::vector<uint32_t> values(100, 9);  // 4 bits
    for (int i = 0; i < 10; ++i) values[i * 10] = 1000000 + i;
    CHECK(invidx::codecs::PForDelta::slot_bits(values) == 4);
    values[5] = 1 << 30;  // 11 exceptions: b must grow
    CHECK(invidx::codecs::PForDelta::slot_bits(values) > 4);

    // 128 small values and 5 huge ones: far smaller than packing every value at 32 bits.
    std::vector<uint32_t> block(128, 3);
    for (const int at : {0, 1, 64, 126, 127}) block[static_cast<size_t>(at)] = kMax - static_cast<uint32_t>(at);
    std::string bytes;
    invidx::codecs::find_codec("pfor").encode(block, bytes);
    CHECK(bytes.size() < 32 + 5 * 8 + 16);
    CHECK(decode_all(invidx::codecs::find_codec("pfor"), bytes, block.size()) == block);
}

TEST_CASE("codec rice takes its parameter from the mean value") {
    CHECK(invidx::codecs::Rice::parameter(std::vector<uint32_t>{}) == 0);
    CHECK(invidx::codecs::Rice::parameter(std::vector<uint32_t>(10, 1)) == 0);
    CHECK(invidx::codecs::Rice::parameter(std::vector<uint32_t>(10, 100)) == 6);  // 0.69·100 = 69 -> 2^6
    CHECK(invidx::codecs::Rice::parameter(std::vector<uint32_t>(10, kMax)) == 31);
    // Unary and binary parts apart: parameter byte, 128 values × 6 bits, then
    // 128 unary codes of q = 1 ("10"): 32 bytes.
    std::string bytes;
    invidx::codecs::find_codec("rice").encode(std::vector<uint32_t>(128, 100), bytes);
    CHECK(bytes.size() == 1 + 128 * 6 / 8 + 128 * 2 / 8);
    CHECK(static_cast<uint8_t>(bytes.back()) == 0x55);  // 1,0,1,0,... least significant bit first
}

TEST_CASE("codec bit packing: vertical groups of 128 and a horizontal tail") {
    std::vector<uint32_t> values(130);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint32_t>(i);
    std::string bytes;
    invidx::codecs::pack(values, 8, bytes);
    REQUIRE(bytes.size() == invidx::codecs::packed_bytes(130, 8));
    CHECK(bytes.size() == 128 + 2);
    // Lane l holds values l, l+4, ...; word 0 of lane 0 = values 0, 4, 8, 12.
    CHECK(bytes.substr(0, 4) == std::string("\x00\x04\x08\x0c", 4));
    CHECK(bytes.substr(4, 4) == std::string("\x01\x05\x09\x0d", 4));
    CHECK(bytes.substr(128) == std::string("\x80\x81", 2));
    std::vector<uint32_t> decoded(130);
    invidx::codecs::unpack(bytes.data(), 8, decoded);
    CHECK(decoded == values);
}
