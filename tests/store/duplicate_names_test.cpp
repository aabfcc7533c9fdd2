// find_duplicate_names reads a finished documents.bin: counts, examples in
// order of their first docid, places from the input list, and at most
// max_examples examples however many names repeat.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "invidx/analysis_settings.hpp"
#include "store/duplicate_names.hpp"
#include "store/index_writer.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using invidx::testing::TempDir;

TEST_CASE("find_duplicate_names: counts, first examples and places of a complete documents.bin") {
    TempDir dir;
    const std::vector<InputFile> files = {{.ordinal = 0, .path = "in/a.warc", .name = "a.warc", .format = "warc", .size_bytes = 1},
                                          {.ordinal = 1, .path = "in/b.warc", .name = "b.warc", .format = "warc", .size_bytes = 1}};
    IndexWriter writer(dir / "idx", AnalysisSettings::defaults(), files);
    const std::vector<std::string> names = {"q", "p", "q", "r", "p", "q", "", ""};
    std::vector<ParsedDoc> docs;
    for (size_t i = 0; i < names.size(); ++i)
        docs.push_back({.name = names[i], .length = 1, .file_ordinal = static_cast<uint32_t>(i % 2), .source_offset = 100 * i});
    writer.append_documents(docs);
    const auto path = writer.complete_documents();

    const DuplicateNames all = find_duplicate_names(path, "documents.bin", files);
    CHECK(all.names == 3);      // q, p, ""
    CHECK(all.documents == 4);  // docids 2, 4, 5, 7
    REQUIRE(all.examples.size() == 3);
    CHECK(all.examples[0].name == "q");
    CHECK(all.examples[0].docids == std::vector<uint32_t>{0, 2, 5});
    CHECK(all.examples[0].places == std::vector<std::string>{"in/a.warc (byte 0)", "in/a.warc (byte 200)", "in/b.warc (byte 500)"});
    CHECK(all.examples[1].name == "p");
    CHECK(all.examples[2].name == "");
    CHECK(all.to_json()["count"] == 4);
    CHECK(all.summary().find("'q' is docid 0 at in/a.warc (byte 0) and docid 2 at in/a.warc (byte 200)") != std::string::npos);

    const DuplicateNames first = find_duplicate_names(path, "documents.bin", files, 1);
    CHECK(first.names == 3);
    CHECK(first.examples.size() == 1);

    // The writer still publishes what it completed.
    writer.write_dictionary({});
    writer.publish();
}

TEST_CASE("find_duplicate_names: unique names, and an empty collection") {
    TempDir dir;
    IndexWriter writer(dir / "idx", AnalysisSettings::defaults(), {});
    const auto empty = find_duplicate_names(writer.complete_documents(), "documents.bin", {});
    CHECK(empty.empty());
    CHECK(empty.to_json()["examples"].empty());
}
