// `invidx merge` (merge_runs) keeps the document store: docids do not
// change, so documents-text.bin is carried byte for byte, listed in the new
// manifest and checksums, and every document's text reads back as before;
// an index without a store stays without one.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "store/document_store_layout.hpp"
#include "store/document_store_reader.hpp"
#include "store/index_check.hpp"
#include "store/merge.hpp"
#include "support/collections.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;
namespace fs = std::filesystem;

namespace {

// 2000 JSONL documents with metadata; small runs so the index has several.
void build(const TempDir& dir, const fs::path& output, bool store) {
    std::string lines;
    for (int i = 0; i < 2000; ++i) {
        lines += "{\"id\": \"d" + std::to_string(i) + "\", \"contents\": \"word" + std::to_string(i % 50) +
                 " text number " + std::to_string(i) + "\", \"n\": " + std::to_string(i) + "}\n";
    }
    dir.write("in/all.jsonl", lines);
    nlohmann::json pipeline = standard_pipeline({(dir / "in").string()}, output, 2, 2);
    if (store) pipeline["store"] = {{"documents", true}, {"level", 1}};
    build_index(pipeline, {"memory.run_bytes=4096", "memory.batch_bytes=2000"});
}

std::vector<StoredDocument> all_text(const fs::path& index_dir) {
    const IndexReader index(index_dir);
    const DocumentStoreReader store(index);
    std::vector<StoredDocument> texts;
    for (uint64_t docid = 0; docid < index.num_documents(); ++docid) texts.push_back(store.document(docid));
    return texts;
}

}  // namespace

TEST_CASE("document store: merge carries it unchanged") {
    TempDir dir;
    build(dir, dir / "idx", true);
    const std::vector<StoredDocument> before = all_text(dir / "idx");
    const std::string bytes_before = read_file(dir / "idx" / layout::kDocumentTextFile);
    {
        const IndexReader index(dir / "idx");
        REQUIRE(index.manifest().runs.size() > 1);  // a merge that merges something
    }

    merge_runs(dir / "idx");

    {
        const IndexReader index(dir / "idx");
        CHECK(index.manifest().runs.size() == 1);
    }
    CHECK(read_file(dir / "idx" / layout::kDocumentTextFile) == bytes_before);
    const std::vector<StoredDocument> after = all_text(dir / "idx");
    REQUIRE(after.size() == before.size());
    for (size_t docid = 0; docid < before.size(); ++docid) {
        CAPTURE(docid);
        CHECK(after[docid].text == before[docid].text);
        CHECK(after[docid].metadata == before[docid].metadata);
    }
    CHECK(after[7].text == "word7 text number 7");
    CHECK(after[7].metadata == "{\"n\":7}");
    CHECK(check_index(dir / "idx", {.full = true}).ok());
}

TEST_CASE("document store: merge of an index without one adds none") {
    TempDir dir;
    build(dir, dir / "idx", false);
    merge_runs(dir / "idx");
    CHECK_FALSE(fs::exists(dir / "idx" / layout::kDocumentTextFile));
    const IndexReader index(dir / "idx");
    CHECK_FALSE(DocumentStoreReader(index).present());
    CHECK(check_index(dir / "idx", {.full = true}).ok());
}
