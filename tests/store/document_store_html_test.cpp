// The document store over a folder of html pages (docs/FORMAT.md,
// "documents-text.bin"): each page is one document whose stored text is the
// file's bytes exactly as read, tags, entities, CRLFs and bytes that are not
// UTF-8 included (the HTML rules apply to the indexed words, not to the
// stored text), and no metadata; also when pages are split across tiny
// read and text blocks.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <string>

#include "store/document_store_reader.hpp"
#include "store/index_check.hpp"
#include "support/collections.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;
namespace fs = std::filesystem;

namespace {

// Page name (its path below the input folder) -> its bytes.
std::map<std::string, std::string> write_pages(const TempDir& dir) {
    const std::map<std::string, std::string> pages = {
        {"index.html", "<!DOCTYPE html>\r\n<html><head><title>Home</title><script>var x = 1;</script></head>\r\n"
                       "<body><p>caf&eacute; &amp; tea</p></body></html>\r\n"},
        {"notes/old.htm", "<P>latin-1 caf\xe9</P>"},
        {"notes/page.xhtml", "<?xml version=\"1.0\"?><html xmlns=\"http://www.w3.org/1999/xhtml\"><body>" +
                                 std::string(5000, 'w') + " long page</body></html>"},
        {"empty.html", ""},
    };
    for (const auto& [name, bytes] : pages) dir.write("pages/" + name, bytes);
    return pages;
}

void check_pages(const fs::path& index_dir, const std::map<std::string, std::string>& pages) {
    const IndexReader index(index_dir);
    REQUIRE(index.num_documents() == pages.size());
    const DocumentStoreReader store(index);
    REQUIRE(store.present());
    for (const auto& [name, bytes] : pages) {
        CAPTURE(name);
        const auto docid = index.find_document_by_name(name);
        REQUIRE(docid.has_value());
        const StoredDocument stored = store.document(*docid);
        CHECK(stored.text == bytes);
        CHECK(stored.metadata.empty());
    }
    CHECK(check_index(index_dir, {.full = true}).ok());
}

nlohmann::json pipeline(const TempDir& dir, const fs::path& output) {
    nlohmann::json description = standard_pipeline({(dir / "pages").string()}, output, 2, 1);
    description["store"] = {{"documents", true}};
    return description;
}

}  // namespace

TEST_CASE("document store: html pages come back byte for byte, tags included") {
    TempDir dir;
    const auto pages = write_pages(dir);
    build_index(pipeline(dir, dir / "idx"));
    check_pages(dir / "idx", pages);
    // The words are indexed by the HTML rules: tag names are no terms, while
    // the stored text above keeps them.
    const IndexReader index(dir / "idx");
    CHECK_FALSE(index.find_term("p").has_value());
    CHECK_FALSE(index.find_term("script").has_value());
}

TEST_CASE("document store: html pages split across tiny read and text blocks come back whole") {
    TempDir dir;
    const auto pages = write_pages(dir);
    build_index(pipeline(dir, dir / "idx"),
                {"memory.read_block_bytes=61", "memory.text_block_bytes=89", "memory.batch_bytes=300"});
    check_pages(dir / "idx", pages);
}

TEST_CASE("document store: every level from 0 (stored) to 12 reads back the same html") {
    TempDir dir;
    const auto pages = write_pages(dir);
    for (const int level : {0, 1, 6, 12}) {
        CAPTURE(level);
        const fs::path output = dir / ("idx-" + std::to_string(level));
        nlohmann::json description = pipeline(dir, output);
        description["store"]["level"] = level;
        build_index(description);
        check_pages(output, pages);
    }
}
