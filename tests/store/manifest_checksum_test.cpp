// manifest.json's own checksum (its key "crc32", docs/FORMAT.md): an edited
// count, input or analysis setting changes what search computes, so opening
// the index and `invidx check` refuse it, naming manifest.json; a manifest
// written before the key existed still opens and check reports it.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "invidx/error.hpp"
#include "store/index_check.hpp"
#include "store/index_fixture.hpp"
#include "store/index_reader.hpp"
#include "store/manifest.hpp"
#include "store/merge.hpp"
#include "support/temp_dir.hpp"

using namespace invidx::testing;
namespace fs = std::filesystem;

namespace {

nlohmann::json read_manifest_json(const fs::path& index_dir) { return nlohmann::json::parse(read_whole(index_dir / "manifest.json")); }

// Written as an editor would: the old "crc32" kept.
void write_unsealed(const fs::path& index_dir, const nlohmann::json& manifest) {
    std::ofstream(index_dir / "manifest.json", std::ios::trunc) << manifest.dump(2) << "\n";
}

std::string open_error(const fs::path& index_dir) {
    try {
        const invidx::IndexReader index(index_dir);
    } catch (const invidx::FormatError& error) {
        return error.what();
    }
    return "";
}

bool mentions(const invidx::IndexCheckReport& report, const std::string& text) {
    for (const auto& problem : report.problems) {
        if (problem.find(text) != std::string::npos) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("manifest checksum: an edited count, input or analysis setting is refused by open and check, naming manifest.json") {
    TempDir dir;
    write_index(make_collection(20, 3), dir / "idx", {.runs = 2, .indexers = 1, .positional = false, .report = {}, .publish = true});
    auto manifest = read_manifest_json(dir / "idx");
    REQUIRE(manifest.contains("crc32"));
    CHECK(manifest["crc32"] == invidx::manifest_checksum(manifest));
    CHECK(invidx::check_index(dir / "idx", {.full = true}).ok());

    SUBCASE("average_length") { manifest["counts"]["average_length"] = manifest["counts"]["average_length"].get<double>() + 8000.0; }
    SUBCASE("an input's name") { manifest["inputs"][0]["name"] = "other.jsonl"; }
    SUBCASE("the stemmer") { manifest["analysis"]["stemmer"] = manifest["analysis"]["stemmer"] == "porter" ? "none" : "porter"; }
    SUBCASE("a stop word more") { manifest["analysis"]["stopwords"].push_back("zebra"); }
    SUBCASE("the checksum itself") { manifest["crc32"] = manifest["crc32"].get<uint32_t>() ^ 1u; }
    write_unsealed(dir / "idx", manifest);

    const std::string error = open_error(dir / "idx");
    CHECK(error.find("manifest.json") != std::string::npos);
    CHECK(error.find("'/crc32'") != std::string::npos);
    CHECK(error.find("was changed or is damaged") != std::string::npos);
    for (const bool full : {false, true}) {
        const auto report = invidx::check_index(dir / "idx", {.full = full});
        CHECK_FALSE(report.ok());
        CHECK(mentions(report, "manifest.json: key '/crc32'"));
    }
}

TEST_CASE("manifest checksum: the same content written another way still opens") {
    TempDir dir;
    write_index(make_collection(12, 5), dir / "idx", {.runs = 1, .indexers = 1, .positional = false, .report = {}, .publish = true});
    const auto manifest = read_manifest_json(dir / "idx");
    dir.write("idx/manifest.json", manifest.dump());  // compact, not indented
    CHECK(open_error(dir / "idx").empty());
    CHECK(invidx::check_index(dir / "idx", {.full = true}).ok());
}

TEST_CASE("manifest checksum: an average_length that disagrees with the totals is refused even with the checksum made to match") {
    TempDir dir;
    write_index(make_collection(12, 5), dir / "idx", {.runs = 1, .indexers = 1, .positional = false, .report = {}, .publish = true});
    auto manifest = read_manifest_json(dir / "idx");
    manifest["counts"]["average_length"] = manifest["counts"]["average_length"].get<double>() * 2;
    SUBCASE("resealed") { write_manifest(dir / "idx", manifest); }
    SUBCASE("as an older invidx wrote it, without a checksum") {
        manifest.erase("crc32");
        write_unsealed(dir / "idx", manifest);
    }
    const std::string error = open_error(dir / "idx");
    CHECK(error.find("manifest.json") != std::string::npos);
    CHECK(error.find("average_length") != std::string::npos);
}

TEST_CASE("manifest checksum: an index written before it opens, check reports the missing checksum, merge adds one") {
    TempDir dir;
    write_index(make_collection(20, 9), dir / "idx", {.runs = 2, .indexers = 2, .positional = false, .report = {}, .publish = true});
    auto manifest = read_manifest_json(dir / "idx");
    manifest.erase("crc32");
    write_unsealed(dir / "idx", manifest);

    CHECK(open_error(dir / "idx").empty());
    const auto report = invidx::check_index(dir / "idx", {.full = true});
    CHECK_FALSE(report.ok());
    REQUIRE(report.problems.size() == 1);
    CHECK(report.problems[0].find("manifest.json") != std::string::npos);
    CHECK(report.problems[0].find("written by an older invidx") != std::string::npos);
    CHECK(report.problems[0].find("invidx merge") != std::string::npos);

    invidx::merge_runs(dir / "idx", {});
    CHECK(read_manifest_json(dir / "idx").contains("crc32"));
    CHECK(invidx::check_index(dir / "idx", {.full = true}).ok());
}
