// A token whose Porter stem would be empty ("s", as in "it's") is indexed as
// the token itself (CONTENT.md §7): through a whole build, the dictionary, the
// `invidx term` tool, the CIFF export and a query, there is a term "s" with
// the right df and never an empty term.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "query/searcher.hpp"
#include "store/index_reader.hpp"
#include "support/collections.hpp"
#include "support/possessives.hpp"
#include "support/run_tool.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

uint64_t read_varint(const std::string& in, size_t& pos) {
    uint64_t value = 0;
    for (int shift = 0;; shift += 7) {
        REQUIRE(pos < in.size());
        const auto byte = static_cast<unsigned char>(in[pos++]);
        value |= uint64_t{byte & 0x7Fu} << shift;
        if ((byte & 0x80) == 0) return value;
    }
}

// The term of each PostingsList message of a CIFF export: its field 1,
// which proto3 leaves out when empty. Messages are varint-length-delimited:
// the header (field 2: the number of postings lists), then the lists.
std::vector<std::string> ciff_terms(const std::string& ciff) {
    size_t pos = 0;
    const uint64_t header_length = read_varint(ciff, pos);
    const std::string header = ciff.substr(pos, header_length);
    pos += header_length;
    uint64_t lists = 0;
    for (size_t at = 0; at < header.size();) {
        const uint64_t key = read_varint(header, at);
        REQUIRE((key & 7) != 2);  // the header's fields before the description are numbers
        const uint64_t value = (key & 7) == 1 ? (at += 8, 0) : read_varint(header, at);
        if (key >> 3 == 2) {
            lists = value;
            break;
        }
    }
    std::vector<std::string> terms;
    for (uint64_t i = 0; i < lists; ++i) {
        const uint64_t length = read_varint(ciff, pos);
        const std::string list = ciff.substr(pos, length);
        pos += length;
        size_t at = 0;
        const uint64_t key = read_varint(list, at);
        if (key != (1u << 3 | 2)) {  // no field 1: the term is empty
            terms.emplace_back();
            continue;
        }
        const uint64_t term_length = read_varint(list, at);
        terms.push_back(list.substr(at, term_length));
    }
    return terms;
}

}  // namespace

TEST_CASE("no empty term: 'it's', 'S', ''s' and a lone 's' give the term 's' in the index, the tools and queries") {
    TempDir dir;
    std::vector<std::string> texts = possessive_texts();
    texts.push_back(text_without_lone_s());
    const auto index_dir = build_text_index(dir, texts);
    const IndexReader index(index_dir);
    const uint64_t with_s = possessive_texts().size();

    // The dictionary: "s" with its df, no empty term anywhere.
    for (uint64_t i = 0; i < index.term_count(); ++i) CHECK(!index.term(i).term.empty());
    CHECK(!index.find_term("").has_value());
    const auto s = index.find_term("s");
    REQUIRE(s.has_value());
    CHECK(index.term(*s).df == with_s);
    CHECK(index.find_term("cat").has_value());  // "cats'" is "cat"

    // `invidx term IDX s` finds it, the same for "S" and "'s".
    const std::string quoted_index = "'" + index_dir.string() + "'";
    const auto term = run_invidx(dir, "term " + quoted_index + " s");
    CHECK(term.exit_code == 0);
    CHECK(term.out.starts_with("term: s\ndf: " + std::to_string(with_s) + "\n"));
    CHECK(run_invidx(dir, "term " + quoted_index + " S").out == term.out);
    CHECK(run_invidx(dir, "term " + quoted_index + " \"'s\"").out == term.out);

    // The CIFF export: one list per term, "s" among them, none empty.
    const std::vector<std::string> exported = ciff_terms(ciff_bytes(index_dir));
    CHECK(exported.size() == index.term_count());
    CHECK(std::count(exported.begin(), exported.end(), std::string()) == 0);
    CHECK(std::count(exported.begin(), exported.end(), std::string("s")) == 1);

    // A query "s" (or "it's") finds exactly the documents holding it.
    const Searcher searcher(index);
    for (const char* query : {"s", "S", "it's", "'s"}) {
        CAPTURE(query);
        const auto result = searcher.search(query, {.k = 100, .mode = QueryMode::kOr});
        std::set<uint32_t> docids;
        for (const auto& hit : result.hits) docids.insert(hit.docid);
        std::set<uint32_t> expected;
        for (uint32_t d = 0; d < with_s; ++d) expected.insert(d);
        CHECK(docids == expected);
    }
}
