// `invidx doc` takes a docid or a name explicitly (--docid, --name); a bare
// key that is all digits is never read as a docid when a document has that
// name (MS MARCO's names are numbers): where it is both, it is an error
// naming the flags.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/analysis_settings.hpp"
#include "store/index_writer.hpp"
#include "support/run_tool.hpp"
#include "support/temp_dir.hpp"

using invidx::testing::run_invidx;
using invidx::testing::TempDir;
namespace fs = std::filesystem;

namespace {

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

// An index of documents named `names` (docid = position), no terms.
void write_named_index(const fs::path& dir, const std::vector<std::string>& names) {
    invidx::IndexWriter writer(dir, invidx::AnalysisSettings::defaults(),
                               {{.ordinal = 0, .path = "/data/in.tsv", .name = "in.tsv", .format = "jsonl", .size_bytes = 9}});
    std::vector<invidx::ParsedDoc> docs;
    for (size_t i = 0; i < names.size(); ++i)
        docs.push_back({.name = names[i], .length = 1, .file_ordinal = 0, .source_offset = 10 * i});
    writer.append_documents(docs);
    writer.write_dictionary({});
    writer.publish();
}

int json_docid(const std::string& out) { return nlohmann::json::parse(out).at("docid").get<int>(); }

}  // namespace

TEST_CASE("invidx doc --name finds numeric names, --docid finds docids") {
    TempDir dir;
    // MS MARCO style: numbers as names, not in docid order.
    write_named_index(dir / "idx", {"1", "0", "7", "2"});
    const std::string idx = quoted(dir / "idx");

    const auto name_0 = run_invidx(dir, "doc --format json " + idx + " --name 0");
    REQUIRE(name_0.exit_code == 0);
    CHECK(json_docid(name_0.out) == 1);
    CHECK(nlohmann::json::parse(name_0.out)["name"] == "0");

    const auto docid_0 = run_invidx(dir, "doc --format json --docid 0 " + idx);
    REQUIRE(docid_0.exit_code == 0);
    CHECK(json_docid(docid_0.out) == 0);
    CHECK(nlohmann::json::parse(docid_0.out)["name"] == "1");

    CHECK(json_docid(run_invidx(dir, "doc --format json " + idx + " --name=7").out) == 2);
    const auto no_name = run_invidx(dir, "doc " + idx + " --name 9");
    CHECK(no_name.exit_code == 1);
    CHECK(no_name.err.find("no document named '9'") != std::string::npos);
    const auto past_end = run_invidx(dir, "doc " + idx + " --docid 4");
    CHECK(past_end.exit_code == 1);
    CHECK(past_end.err.find("4 documents") != std::string::npos);
    CHECK(run_invidx(dir, "doc " + idx + " --docid x").exit_code == 2);
    CHECK(run_invidx(dir, "doc " + idx + " --docid 0 --name 0").exit_code == 2);
    CHECK(run_invidx(dir, "doc " + idx + " --docid 0 0").exit_code == 2);
    CHECK(run_invidx(dir, "doc " + idx).exit_code == 2);
}

TEST_CASE("invidx doc with a bare number that is both a docid and a name is an error naming the flags") {
    TempDir dir;
    write_named_index(dir / "idx", {"1", "0", "7", "2"});
    const std::string idx = quoted(dir / "idx");
    const auto ambiguous = run_invidx(dir, "doc " + idx + " 0");
    CHECK(ambiguous.exit_code == 2);
    CHECK(ambiguous.err.find("ambiguous") != std::string::npos);
    CHECK(ambiguous.err.find("--docid 0") != std::string::npos);
    CHECK(ambiguous.err.find("--name 0") != std::string::npos);
    CHECK(ambiguous.out.empty());
    // "7" is a name and no docid (4 documents): the name.
    const auto seven = run_invidx(dir, "doc --format json " + idx + " 7");
    REQUIRE(seven.exit_code == 0);
    CHECK(json_docid(seven.out) == 2);
    // "3" is a docid and no name: the docid.
    const auto three = run_invidx(dir, "doc --format json " + idx + " 3");
    REQUIRE(three.exit_code == 0);
    CHECK(json_docid(three.out) == 3);
    // Not all digits: always a name ("+1" is none here).
    CHECK(run_invidx(dir, "doc " + idx + " +1").exit_code == 1);
}

TEST_CASE("invidx doc --name of a duplicated name gives the lowest docid and notes the others") {
    TempDir dir;
    write_named_index(dir / "idx", {"a", "dup", "b", "dup"});
    const auto dup = run_invidx(dir, "doc --format json " + quoted(dir / "idx") + " --name dup");
    REQUIRE(dup.exit_code == 0);
    CHECK(json_docid(dup.out) == 1);
    CHECK(dup.err.find("2 documents have this name (docids 1 3)") != std::string::npos);
    const auto unique = run_invidx(dir, "doc " + quoted(dir / "idx") + " --name a");
    CHECK(unique.err.empty());
}
