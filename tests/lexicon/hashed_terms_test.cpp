#include <doctest/doctest.h>

#include <map>
#include <string>

#include "invidx/error.hpp"
#include "lexicon/generated_dictionaries.hpp"
#include "lexicon/hashed_terms_builder.hpp"

using namespace invidx;
using namespace invidx::lexicon;

namespace {

uint64_t find(const HashedTermsView& table, std::string_view term) {
    return table.find(reinterpret_cast<const unsigned char*>(term.data()), static_cast<uint32_t>(term.size()));
}

void check_against_map(const std::set<std::string>& terms, uint32_t seed) {
    const HashedTerms table(testing::views_of(terms));
    std::map<std::string, uint64_t> expected;
    for (const auto& term : terms) expected.emplace(term, expected.size());
    for (const auto& [term, index] : expected) REQUIRE(find(table.view(), term) == index);
    for (const auto& string : testing::missing_strings(terms, seed)) REQUIRE(find(table.view(), string) == kTermNotFound);
}

}  // namespace

TEST_CASE("hashed terms: every term of generated dictionaries against std::map, and near misses") {
    for (const uint32_t seed : {1u, 2u, 3u}) {
        CAPTURE(seed);
        check_against_map(testing::generated_dictionary(seed, 3000, seed == 2), seed);
    }
    check_against_map(testing::generated_dictionary(4, 40000, true), 4);
    check_against_map({}, 5);
    check_against_map({""}, 5);
    check_against_map({std::string(255, '\x80')}, 5);
}

TEST_CASE("hashed terms: the table is at the target load and a copy of its buffer answers") {
    const auto terms = testing::generated_dictionary(6, 1000, false);
    const HashedTerms table(testing::views_of(terms));
    CHECK(table.sections().slot_count >= terms.size() / kHashedTermsLoad);
    CHECK(table.sections().slot_count <= terms.size() / kHashedTermsLoad + 2);
    const std::vector<uint64_t> copy(table.buffer().begin(), table.buffer().end());
    uint64_t index = 0;
    for (const auto& term : terms) REQUIRE(find(table.sections().view(copy.data()), term) == index++);
}

TEST_CASE("hashed terms: the hash depends on every byte and on the length") {
    const std::string base(20, 'a');
    const uint64_t hash = term_hash(reinterpret_cast<const unsigned char*>(base.data()), 20);
    for (size_t i = 0; i < base.size(); ++i) {
        std::string changed = base;
        changed[i] = 'b';
        CHECK(term_hash(reinterpret_cast<const unsigned char*>(changed.data()), 20) != hash);
    }
    const std::string with_zero("a\0", 2);
    CHECK(term_hash(reinterpret_cast<const unsigned char*>(with_zero.data()), 2) !=
          term_hash(reinterpret_cast<const unsigned char*>(with_zero.data()), 1));
    CHECK_THROWS_AS(HashedTerms(std::vector<std::string_view>{"b", "a"}), Error);
}
