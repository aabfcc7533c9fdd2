#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "lexicon/bit_rank_builder.hpp"

using namespace invidx::lexicon;

TEST_CASE("bit rank: rank, select and next_one equal a count over the bits, every size and density") {
    std::mt19937 random(7);
    for (const uint32_t size : {0u, 1u, 63u, 64u, 255u, 256u, 257u, 447u, 448u, 449u, 511u, 512u, 513u, 896u, 1023u, 5000u, 65535u, 65536u, 65537u, 70000u, 200000u}) {
        for (const uint32_t per_thousand : {0u, 3u, 500u, 990u, 1000u}) {
            CAPTURE(size);
            CAPTURE(per_thousand);
            std::vector<bool> bits(size);
            for (uint32_t i = 0; i < size; ++i) bits[i] = random() % 1000 < per_thousand;
            FlatBuffer buffer;
            buffer.append(std::vector<uint32_t>{1, 2, 3});  // a section before it: offsets must hold
            const BitRankSections sections = append_bit_rank(buffer, bits, SelectSupport::ones);
            const BitRankView view = sections.view(buffer.words().data());
            uint32_t ones = 0;
            std::vector<uint32_t> positions;
            for (uint32_t i = 0; i < size; ++i) {
                REQUIRE(view.rank1(i) == ones);
                REQUIRE(view.get(i) == bits[i]);
                if (bits[i]) {
                    positions.push_back(i);
                    ++ones;
                }
            }
            CHECK(view.rank1(size) == ones);
            CHECK(view.ones == ones);
            // rank1_pair counts the ones between close ends rather than ranking twice: the same answers.
            for (uint32_t k = 0; k < 2000 && size > 0; ++k) {
                const uint32_t begin = random() % (size + 1);
                const uint32_t end = std::min<uint32_t>(size, begin + random() % (k % 2 == 0 ? 200 : size + 1));
                uint32_t rank_begin = 0, rank_end = 0;
                view.rank1_pair(begin, end, rank_begin, rank_end);
                REQUIRE(rank_begin == view.rank1(begin));
                REQUIRE(rank_end == view.rank1(end));
                REQUIRE(view.ones_between(begin, end) == rank_end - rank_begin);
            }
            // Without select support the samples are not stored: a smaller buffer, the same ranks.
            FlatBuffer rank_only;
            const BitRankView ranks = append_bit_rank(rank_only, bits).view(rank_only.words().data());
            CHECK(rank_only.bytes() <= buffer.bytes());
            CHECK(ranks.rank1(size) == ones);
            for (uint32_t k = 0; k < positions.size(); ++k) REQUIRE(view.select1(k) == positions[k]);
            size_t next = 0;
            for (uint32_t i = 0; i <= size; ++i) {
                while (next < positions.size() && positions[next] < i) ++next;
                REQUIRE(view.next_one(i) == (next < positions.size() ? positions[next] : size));
            }
        }
    }
}

TEST_CASE("select_in_word finds the k-th one of a word") {
    const uint64_t word = 0x8000'0001'0010'0101ull;  // bits 0, 8, 20, 32, 63
    const uint32_t expected[] = {0, 8, 20, 32, 63};
    for (uint32_t k = 0; k < 5; ++k) CHECK(select_in_word(word, k) == expected[k]);
    CHECK(select_in_word(~uint64_t{0}, 63) == 63);
}
