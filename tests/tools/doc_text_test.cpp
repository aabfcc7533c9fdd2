// `invidx doc IDX (--docid N | --name NAME) --text`: the document store's
// text as indexed, unescaped; with --format json also the JSONL record's
// other fields as an object. On an index without a store it fails (exit 3)
// saying how to build one, and prints nothing on stdout.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "support/collections.hpp"
#include "support/run_tool.hpp"
#include "support/temp_dir.hpp"

using invidx::testing::build_index;
using invidx::testing::run_invidx;
using invidx::testing::standard_pipeline;
using invidx::testing::TempDir;
namespace fs = std::filesystem;

namespace {

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

// docid 0: "j1" (metadata), 1: "42" (none), 2: "T-1" (TREC, text starts
// and ends with a newline).
void write_collection(const TempDir& dir) {
    dir.write("in/a.jsonl",
              "{\"id\": \"j1\", \"contents\": \"first \\u00e9 line\\nsecond line\", \"url\": \"http://x/\", \"title\": "
              "\"T\", \"n\": 3}\n"
              "{\"id\": \"42\", \"contents\": \"numeric name\"}\n");
    dir.write("in/b.trec", "<DOC>\n<DOCNO> T-1 </DOCNO>\n<p>trec text</p>\n</DOC>\n");
}

void build(const TempDir& dir, const fs::path& output, bool store) {
    nlohmann::json pipeline = standard_pipeline({(dir / "in").string()}, output, 2, 1);
    if (store) pipeline["store"] = {{"documents", true}};
    build_index(pipeline);
}

}  // namespace

TEST_CASE("invidx doc --text prints the stored text as indexed") {
    TempDir dir;
    write_collection(dir);
    build(dir, dir / "idx", true);
    const std::string idx = quoted(dir / "idx");

    const auto first = run_invidx(dir, "doc " + idx + " --docid 0 --text");
    REQUIRE(first.exit_code == 0);
    // Raw bytes, one newline added where the text does not end with one.
    CHECK(first.out == "first \xc3\xa9 line\nsecond line\n");

    const auto trec = run_invidx(dir, "doc " + idx + " --docid 2 --text");
    REQUIRE(trec.exit_code == 0);
    CHECK(trec.out == "\n<p>trec text</p>\n");

    // Digits after --name are a name: docid 1 is "42", not docid 42.
    const auto numeric = run_invidx(dir, "doc " + idx + " --name 42 --text");
    REQUIRE(numeric.exit_code == 0);
    CHECK(numeric.out == "numeric name\n");
}

TEST_CASE("invidx doc --name --text --format json gives text and JSONL metadata") {
    TempDir dir;
    write_collection(dir);
    build(dir, dir / "idx", true);
    const std::string idx = quoted(dir / "idx");

    const auto with_metadata = run_invidx(dir, "doc " + idx + " --name j1 --text --format json");
    REQUIRE(with_metadata.exit_code == 0);
    const auto record = nlohmann::json::parse(with_metadata.out);
    CHECK(record["docid"] == 0);
    CHECK(record["name"] == "j1");
    CHECK(record["text"] == "first \xc3\xa9 line\nsecond line");
    CHECK(record["metadata"] == nlohmann::json{{"n", 3}, {"title", "T"}, {"url", "http://x/"}});

    const auto without_metadata = run_invidx(dir, "doc --format json " + idx + " --name T-1 --text");
    REQUIRE(without_metadata.exit_code == 0);
    const auto trec = nlohmann::json::parse(without_metadata.out);
    CHECK(trec["docid"] == 2);
    CHECK(trec["text"] == "\n<p>trec text</p>\n");
    CHECK(trec["metadata"] == nlohmann::json::object());

    // Without --text the record has neither field.
    const auto plain = nlohmann::json::parse(run_invidx(dir, "doc --format json " + idx + " --name j1").out);
    CHECK_FALSE(plain.contains("text"));
    CHECK_FALSE(plain.contains("metadata"));
}

TEST_CASE("invidx doc --text on an index without a store says how to build one") {
    TempDir dir;
    write_collection(dir);
    build(dir, dir / "idx", false);
    const std::string idx = quoted(dir / "idx");
    REQUIRE(run_invidx(dir, "doc " + idx + " --docid 0").exit_code == 0);  // the record needs no store

    for (const std::string& format : {std::string(), std::string(" --format json")}) {
        CAPTURE(format);
        const auto missing = run_invidx(dir, "doc " + idx + " --docid 0 --text" + format);
        CHECK(missing.exit_code == 3);
        CHECK(missing.out.empty());
        CHECK(missing.err.find("no document text") != std::string::npos);
        CHECK(missing.err.find("\"store\": {\"documents\": true}") != std::string::npos);
    }
}
