// dictionary.bin in pieces: checksums put together from spans equal the
// writer's over the same bytes, and splitters cut the terms into ranges.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <random>

#include "store/binary_io.hpp"
#include "store/dictionary_pieces.hpp"
#include "store/index_layout.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

TEST_CASE("checksums put together from spans cut anywhere equal the writer's") {
    TempDir dir;
    std::mt19937 random(3);
    for (const size_t size : {size_t{1}, size_t{65536}, size_t{65540}, size_t{300000}}) {
        CAPTURE(size);
        std::string bytes(size, '\0');
        for (auto& byte : bytes) byte = static_cast<char>(random());
        BinaryWriter out(dir / "file");
        out.bytes(bytes);
        // Cut into pieces at random places, given in reverse order.
        std::vector<ChecksumSpan> spans;
        size_t at = 0;
        while (at < size) {
            const size_t length = std::min<size_t>(size - at, 1 + random() % 90000);
            const auto cut = checksum_spans(at, std::string_view(bytes).substr(at, length));
            spans.insert(spans.begin(), cut.begin(), cut.end());
            at += length;
        }
        const FileChecksums sums = assemble_checksums(spans, size);
        CHECK(sums.crc32 == out.crc());
        CHECK(sums.block_crcs == out.block_crcs());
        spans.pop_back();  // the first bytes missing
        CHECK_THROWS(assemble_checksums(spans, size));
        out.finish();
    }
}

TEST_CASE("the offsets of a piece point at its records after those before it") {
    std::vector<DictionaryTerm> terms(3);
    terms[0].term = "a", terms[1].term = "bb", terms[2].term = "ccc";
    terms[1].lists.resize(2);
    const std::string records = encode_dictionary_records(terms);
    CHECK(records.size() == dictionary_record_bytes(terms[0]) + dictionary_record_bytes(terms[1]) +
                                dictionary_record_bytes(terms[2]));
    const std::string offsets = encode_dictionary_offsets(terms, 1000);
    REQUIRE(offsets.size() == 24);
    CHECK(load_u64(offsets.data()) == 1000);
    CHECK(load_u64(offsets.data() + 8) == 1000 + dictionary_record_bytes(terms[0]));
    CHECK(encode_dictionary_header(7).size() == kDictionaryHeaderBytes);
    CHECK(encode_dictionary_header(7).substr(0, 8) == layout::kDictionaryMagic);
}

TEST_CASE("splitters cut sampled terms into nearly equal ranges, some empty when terms are few") {
    std::vector<DictionaryTerm> part_a, part_b;
    for (int i = 0; i < 1000; ++i) {
        const std::string term = "t" + std::to_string(100000 + i);
        (i % 3 == 0 ? part_a : part_b).push_back(DictionaryTerm{.term = term});
    }
    double weight_a = 0, weight_b = 0;
    const auto sample_a = sample_sorted_terms(part_a, 64 * 4, weight_a);
    const auto sample_b = sample_sorted_terms(part_b, 64 * 4, weight_b);
    const auto splitters = choose_term_splitters({sample_a, sample_b}, {weight_a, weight_b}, 4);
    REQUIRE(splitters.size() == 3);
    std::vector<int> counts(4, 0);
    for (const auto& part : {part_a, part_b})
        for (const auto& term : part) ++counts.at(splitter_range(splitters, term.term));
    for (const int count : counts) CHECK(std::abs(count - 250) <= 20);

    // Two terms over four ranges: every term in exactly one range.
    const std::vector<DictionaryTerm> two = {DictionaryTerm{.term = "alpha"}, DictionaryTerm{.term = "beta"}};
    double weight = 0;
    const auto few = choose_term_splitters({sample_sorted_terms(two, 256, weight)}, {weight}, 4);
    REQUIRE(few.size() == 3);
    CHECK(std::is_sorted(few.begin(), few.end()));
    CHECK(splitter_range(few, "alpha") != splitter_range(few, "beta"));
    CHECK(splitter_range(few, "alpha") < 4);
    // Nothing sampled at all: one range takes every term.
    const auto none = choose_term_splitters({}, {}, 3);
    CHECK(splitter_range(none, "x") == splitter_range(none, "y"));
}
