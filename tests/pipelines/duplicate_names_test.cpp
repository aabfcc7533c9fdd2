// Document names that several documents have are reported by the build
// (report.json "duplicate_names" and one notice line), and with
// "on_duplicate_id": "error" they fail it, naming both places, before
// anything is published.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "invidx/error.hpp"
#include "invidx/pipeline.hpp"
#include "store/index_reader.hpp"
#include "support/collections.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

std::string trec_doc(const std::string& docno, const std::string& text) {
    return "<DOC>\n<DOCNO>" + docno + "</DOCNO>\n<TEXT>\n" + text + "\n</TEXT>\n</DOC>\n";
}

// a.trec: "x" (docid 0), "y" (1); b.trec: "x" again (2) at byte 0, "z" (3), "y" again (4).
nlohmann::json duplicate_collection(const TempDir& dir) {
    dir.write("in/a.trec", trec_doc("x", "apples") + trec_doc("y", "pears"));
    dir.write("in/b.trec", trec_doc("x", "plums") + trec_doc("z", "figs") + trec_doc("y", "kiwis"));
    return standard_pipeline({(dir / "in").string()}, dir / "idx", 2, 2);
}

}  // namespace

TEST_CASE("duplicate document names: counted with examples in report.json and one notice line") {
    TempDir dir;
    std::vector<std::string> notices;
    RunOptions options;
    options.notice = [&](const std::string& line) { notices.push_back(line); };
    const BuildReport report = Pipeline(PipelineConfig::from_json(duplicate_collection(dir))).run(options);

    const auto& duplicates = report.json.at("duplicate_names");
    CHECK(duplicates.at("count") == 2);  // docids 2 and 4 repeat an earlier name
    CHECK(duplicates.at("names") == 2);
    REQUIRE(duplicates.at("examples").size() == 2);
    const auto& x = duplicates["examples"][0];
    CHECK(x.at("name") == "x");
    CHECK(x.at("docids") == std::vector<int>{0, 2});
    REQUIRE(x.at("places").size() == 2);
    CHECK(x["places"][0].get<std::string>().find("a.trec (byte 0)") != std::string::npos);
    CHECK(x["places"][1].get<std::string>().find("b.trec (byte 0)") != std::string::npos);
    CHECK(duplicates["examples"][1].at("name") == "y");
    CHECK(duplicates["examples"][1].at("docids") == std::vector<int>{1, 4});

    REQUIRE(notices.size() == 1);
    CHECK(notices[0].find("2 documents have the name of an earlier document") != std::string::npos);
    CHECK(notices[0].find("'x'") != std::string::npos);
    CHECK(notices[0].find("b.trec") != std::string::npos);

    // The published index has it too, and lookup by a duplicated name gives the lowest docid.
    const IndexReader index(dir / "idx");
    REQUIRE(index.report());
    CHECK(index.report()->at("duplicate_names").at("count") == 2);
    CHECK(index.find_document_by_name("x") == std::optional<uint32_t>(0));
    CHECK(index.find_documents_by_name("y") == std::vector<uint32_t>{1, 4});
    CHECK(index.find_documents_by_name("z") == std::vector<uint32_t>{3});
}

TEST_CASE("unique document names: duplicate_names has count 0 and no notice") {
    TempDir dir;
    dir.write("in/a.trec", trec_doc("x", "apples") + trec_doc("y", "pears"));
    std::vector<std::string> notices;
    RunOptions options;
    options.notice = [&](const std::string& line) { notices.push_back(line); };
    const BuildReport report =
        Pipeline(PipelineConfig::from_json(standard_pipeline({(dir / "in").string()}, dir / "idx", 2, 2))).run(options);
    CHECK(report.json.at("duplicate_names").at("count") == 0);
    CHECK(report.json["duplicate_names"].at("examples").empty());
    CHECK(notices.empty());
}

TEST_CASE("on_duplicate_id error fails the build naming both places and publishes nothing") {
    TempDir dir;
    auto description = duplicate_collection(dir);
    description["on_duplicate_id"] = "error";
    std::string message;
    try {
        Pipeline(PipelineConfig::from_json(description)).run();
    } catch (const Error& error) {
        message = error.what();
    }
    CHECK(message.find("duplicate document name 'x'") != std::string::npos);
    CHECK(message.find("a.trec (byte 0)") != std::string::npos);
    CHECK(message.find("b.trec (byte 0)") != std::string::npos);
    CHECK(message.find("on_duplicate_id") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "idx"));
    // No temporary directory ("idx.tmp-<pid>-<n>") left beside it either.
    for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
        CHECK(entry.path().filename().string().find("idx.tmp") == std::string::npos);
}

TEST_CASE("on_duplicate_id: \"warn\" is the default, \"error\" is accepted, anything else is a ConfigError naming the key") {
    TempDir dir;
    auto description = standard_pipeline({(dir / "in").string()}, dir / "idx", 1, 1);
    CHECK(PipelineConfig::from_json(description).on_duplicate_id == DuplicateIdPolicy::warn);
    description["on_duplicate_id"] = "error";
    CHECK(PipelineConfig::from_json(description).on_duplicate_id == DuplicateIdPolicy::error);
    description["on_duplicate_id"] = "ignore";
    try {
        PipelineConfig::from_json(description);
        FAIL("expected a ConfigError");
    } catch (const ConfigError& error) {
        CHECK(std::string(error.what()).find("/on_duplicate_id") != std::string::npos);
        CHECK(std::string(error.what()).find("warn, error") != std::string::npos);
    }
}
