// The query-ready layout (query.post): written by `merge --layout query`
// with every codec, it must hold exactly the index's postings, in blocks of
// 128 with the right last docids and block maxima, and damage must be a
// FormatError (or, where a checksum-fixed change still decodes, a well-formed
// list), never a crash.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/error.hpp"
#include "analysis/analyzer.hpp"
#include "query/searcher.hpp"
#include "store/ciff_export.hpp"
#include "store/codecs/registry.hpp"
#include "store/crc32.hpp"
#include "store/index_reader.hpp"
#include "store/merge.hpp"
#include "store/query_postings.hpp"
#include "store/index_fixture.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"

using namespace invidx;
using namespace invidx::testing;
namespace fs = std::filesystem;

namespace {

constexpr uint32_t kDocuments = 1200;

// Words with chosen document frequencies: 1, 127, 128, 129 (the block
// boundaries), three postings with huge gaps, every document (9 full blocks
// and a short one), and tfs from 1 to 9.
std::vector<std::string> boundary_texts() {
    std::vector<std::string> texts(kDocuments);
    for (uint32_t d = 0; d < kDocuments; ++d) {
        std::string& text = texts[d];
        text = "everywhere";
        for (uint32_t r = 0; r < d % 9; ++r) text += " everywhere";  // tf 1..9
        if (d == 1199) text += " loner";
        if (d % 9 == 0 && d / 9 < 127) text += " sevenfold";
        if (d % 9 == 1 && d / 9 < 128) text += " eightfold";
        if (d % 9 == 2 && d / 9 < 129) text += " ninefold";
        if (d == 0 || d == 600 || d == 1199) text += " sparse";
        text += " filler" + std::to_string(d % 37);
    }
    return texts;
}

uint64_t term_of(const IndexReader& index, const std::string& word) {
    Analyzer analyzer(index.analysis());
    const auto terms = analyzer.analyze_query(word);
    REQUIRE(terms.size() == 1);
    const auto found = index.find_term(terms[0]);
    REQUIRE(found);
    return *found;
}

fs::path merged_copy(const fs::path& source, const fs::path& target, const std::string& codec) {
    fs::copy(source, target, fs::copy_options::recursive);
    merge_runs(target, {.query_codec = codec});
    return target;
}

// Replaces query.post by `bytes` with its trailing CRC-32, the manifest's
// size and CRC-32 and its block checksums made to match, so that only the
// layout's own checks can notice the damage.
void replace_with_valid_checksums(const fs::path& index_dir, std::string bytes) {
    const uint32_t inner = crc32(std::string_view(bytes).substr(0, bytes.size() - 4));
    for (int i = 0; i < 4; ++i) bytes[bytes.size() - 4 + i] = static_cast<char>((inner >> (8 * i)) & 0xFF);
    {
        std::ofstream out(index_dir / "query.post", std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    auto manifest = nlohmann::json::parse(read_file(index_dir / "manifest.json"));
    for (auto& file : manifest["files"]) {
        if (file["path"] == "query.post") {
            file["size_bytes"] = bytes.size();
            file["crc32"] = crc32(bytes);
        }
    }
    invidx::testing::write_manifest(index_dir, manifest);
    invidx::testing::refresh_checksums(index_dir);
}

}  // namespace

TEST_CASE("query layout: every codec holds the index's postings in blocks of 128 with last docids and block maxima") {
    TempDir dir;
    const auto standard = build_text_index(dir, boundary_texts());
    const IndexReader reference(standard);
    for (const auto& codec : codecs::all_codecs()) {
        CAPTURE(codec.name);
        const auto merged = merged_copy(standard, dir / ("idx-" + std::string(codec.name)), std::string(codec.name));
        const IndexReader index(merged);
        REQUIRE(QueryPostings::present(index));
        const QueryPostings layout(index);
        CHECK(layout.codec().name == codec.name);
        CHECK(layout.parameters().k1 == 0.9);
        CHECK(layout.parameters().b == 0.4);
        const Searcher searcher(index);  // its length norms are what the block maxima use
        const auto norms = searcher.length_norms();

        CHECK(index.term(term_of(index, "loner")).df == 1);
        CHECK(index.term(term_of(index, "sevenfold")).df == 127);
        CHECK(index.term(term_of(index, "eightfold")).df == 128);
        CHECK(index.term(term_of(index, "ninefold")).df == 129);
        CHECK(index.term(term_of(index, "sparse")).df == 3);
        CHECK(index.term(term_of(index, "everywhere")).df == kDocuments);

        for (uint64_t t = 0; t < index.term_count(); ++t) {
            const auto expected = reference.postings(t);
            const QueryList list = layout.list(t);
            CAPTURE(index.term(t).term);
            const auto decoded = list.decode();
            REQUIRE(decoded.docids == expected.docids);
            REQUIRE(decoded.tfs == expected.tfs);
            REQUIRE(list.blocks().size() == (expected.docids.size() + 127) / 128);
            double list_max = 0.0;
            for (size_t k = 0; k < list.blocks().size(); ++k) {
                const QueryBlock& block = list.blocks()[k];
                const size_t start = k * 128;
                const size_t end = std::min(start + 128, expected.docids.size());
                CHECK(block.postings == end - start);
                CHECK(block.last_docid == expected.docids[end - 1]);
                CHECK(block.next_docid == (k == 0 ? 0 : expected.docids[start - 1] + 1));
                double block_max = 0.0;
                for (size_t i = start; i < end; ++i) {
                    block_max = std::max(block_max, searcher.bm25().tf_part(expected.tfs[i], norms[expected.docids[i]]));
                }
                CHECK(block.max_tf_part == block_max);  // exactly: the bound MaxScore uses
                list_max = std::max(list_max, block_max);
                // A block decodes on its own, from its skip entry.
                std::vector<uint32_t> docids(block.postings), tfs(block.postings);
                list.decode_docids(k, docids);
                list.decode_tfs(k, tfs);
                CHECK(std::equal(docids.begin(), docids.end(), expected.docids.begin() + static_cast<std::ptrdiff_t>(start)));
                CHECK(std::equal(tfs.begin(), tfs.end(), expected.tfs.begin() + static_cast<std::ptrdiff_t>(start)));
            }
            CHECK(list.max_tf_part() == list_max);
        }
    }
}

TEST_CASE("query layout: merge keeps content and CIFF, a plain merge drops it, a bad codec writes nothing") {
    TempDir dir;
    const auto standard = build_text_index(dir, boundary_texts());
    const auto ciff = [](const fs::path& index_dir) {
        std::ostringstream out;
        const IndexReader index(index_dir);
        export_ciff(index, out, "test");
        return out.str();
    };
    const std::string before = ciff(standard);
    const auto merged = merged_copy(standard, dir / "idx-q", "pfor");
    CHECK(ciff(merged) == before);
    CHECK(QueryPostings::present(IndexReader(merged)));

    merge_runs(merged);
    CHECK_FALSE(QueryPostings::present(IndexReader(merged)));
    CHECK(ciff(merged) == before);

    const std::string manifest = read_file(merged / "manifest.json");
    try {
        merge_runs(merged, {.query_codec = "zip"});
        FAIL("expected an error");
    } catch (const Error& error) {
        CHECK(std::string(error.what()).find("unknown codec 'zip'; known: vbyte, pfor, rice, bp128") != std::string::npos);
    }
    CHECK(read_file(merged / "manifest.json") == manifest);

    // Without a query.post the layout cannot be opened: a FormatError.
    CHECK_THROWS_AS(QueryPostings(IndexReader(merged)), FormatError);
}

TEST_CASE("query layout: damaged query.post is a FormatError or a well-formed list, never a crash") {
    TempDir dir;
    std::vector<std::string> texts = boundary_texts();
    texts.resize(400);  // a small file, so many positions can be tried
    const auto standard = build_text_index(dir, texts);
    for (const auto& codec : codecs::all_codecs()) {
        CAPTURE(codec.name);
        const auto merged = merged_copy(standard, dir / ("idx-" + std::string(codec.name)), std::string(codec.name));
        const std::string original = read_file(merged / "query.post");
        size_t errors = 0, tries = 0;
        const size_t step = std::max<size_t>(1, original.size() / 400);
        for (size_t at = 0; at + 4 < original.size(); at += step) {
            for (const unsigned char flip : {0x01, 0x5A, 0x80}) {
                CAPTURE(at);
                std::string damaged = original;
                damaged[at] = static_cast<char>(damaged[at] ^ flip);
                replace_with_valid_checksums(merged, damaged);
                ++tries;
                try {
                    const IndexReader index(merged);
                    const QueryPostings layout(index);
                    bool well_formed = true;
                    for (uint64_t t = 0; t < index.term_count(); ++t) {
                        const auto list = layout.list(t).decode();
                        well_formed &= list.docids.size() == index.term(t).df;
                        for (size_t i = 0; i < list.docids.size(); ++i) {
                            well_formed &= list.docids[i] < index.num_documents() && (i == 0 || list.docids[i] > list.docids[i - 1]);
                        }
                    }
                    CHECK(well_formed);
                } catch (const FormatError& error) {
                    ++errors;
                    CHECK(std::string(error.what()).find("query.post") != std::string::npos);
                }
            }
        }
        replace_with_valid_checksums(merged, original);
        MESSAGE(codec.name << ": " << errors << " of " << tries << " damaged files refused");
        CHECK(errors * 2 > tries);  // most changes are noticed (a block maximum only within (0, k1 + 1])
    }
}
