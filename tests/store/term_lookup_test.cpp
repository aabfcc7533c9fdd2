#include <doctest/doctest.h>

#include <map>
#include <string>

#include "invidx/error.hpp"
#include "lexicon/generated_dictionaries.hpp"
#include "store/index_reader.hpp"
#include "store/term_lookup.hpp"
#include "support/collections.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

TEST_CASE("term lookup: both kinds find every term of the bundled sample's index as std::map and find_term do") {
    TempDir dir;
    const auto output = dir / "sample";
    build_index(standard_pipeline({std::string(INVIDX_SOURCE_DIR) + "/sample/debian-docs.warc.gz"}, output, 2, 2));
    const IndexReader index(output);
    REQUIRE(index.term_count() > 1000);
    std::map<std::string, uint64_t> expected;
    std::set<std::string> terms;
    for (uint64_t i = 0; i < index.term_count(); ++i) {
        expected.emplace(std::string(index.term(i).term), i);
        terms.insert(std::string(index.term(i).term));
    }
    const auto missing = missing_strings(terms, 9);
    for (const auto kind : {TermLookupKind::xbw, TermLookupKind::hash}) {
        CAPTURE(term_lookup_name(kind));
        const TermLookup lookup(index, kind);
        CHECK(lookup.kind() == kind);
        CHECK(lookup.bytes() > 0);
        for (const auto& [term, i] : expected) REQUIRE(lookup.find(term) == std::optional<uint64_t>(i));
        for (const auto& string : missing) {
            REQUIRE(lookup.find(string) == std::nullopt);
            REQUIRE(index.find_term(string) == std::nullopt);
        }
    }
}

TEST_CASE("term lookup: kinds by name, an unknown name lists the known ones") {
    CHECK(term_lookup_kind("xbw") == TermLookupKind::xbw);
    CHECK(term_lookup_kind("hash") == TermLookupKind::hash);
    CHECK(term_lookup_name(term_lookup_kind("hash")) == "hash");
    CHECK_THROWS_WITH_AS(term_lookup_kind("trie"), doctest::Contains("known: xbw, hash"), Error);
}
