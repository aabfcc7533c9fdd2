// `invidx search --k1 X --b Y`: the library's scores for those parameters,
// on the run files and on the query layout; values out of range and the
// flags with --scoring impact are usage errors naming the flags (exit 2);
// `invidx stats` says what the query layout holds.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "query/searcher.hpp"
#include "support/collections.hpp"
#include "support/run_tool.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

std::string quoted(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

std::filesystem::path build_small_index(const TempDir& dir) {
    const auto input = dir.write("in/docs.jsonl",
                                 "{\"id\": \"doc-a\", \"contents\": \"apples apples\"}\n"
                                 "{\"id\": \"doc-b\", \"contents\": \"running apples and more words here\"}\n"
                                 "{\"id\": \"7\", \"contents\": \"apples zebras zebras the zebras\"}\n"
                                 "{\"id\": \"doc-c\", \"contents\": \"zebras running far away from the apples\"}\n");
    build_index(standard_pipeline({input.string()}, dir / "idx", 1, 1));
    return dir / "idx";
}

// (name, score) of every hit of `search ... --format json`.
std::vector<std::pair<std::string, double>> json_hits(const ToolResult& result) {
    REQUIRE(result.exit_code == 0);
    std::vector<std::pair<std::string, double>> hits;
    const nlohmann::json parsed = nlohmann::json::parse(result.out);  // kept: the loop reads into it
    for (const auto& hit : parsed.at(0).at("results")) {
        hits.emplace_back(hit.at("name").get<std::string>(), hit.at("score").get<double>());
    }
    return hits;
}

std::vector<std::pair<std::string, double>> library_hits(const std::filesystem::path& path, const std::string& query,
                                                         std::optional<double> k1, std::optional<double> b) {
    const IndexReader index(path);
    const Searcher searcher(index);
    SearchOptions options{.k = 10};
    options.k1 = k1;
    options.b = b;
    std::vector<std::pair<std::string, double>> hits;
    for (const auto& hit : searcher.search(query, options).hits) hits.emplace_back(index.document(hit.docid).name, hit.score);
    return hits;
}

}  // namespace

TEST_CASE("invidx search --k1 --b: the library's BM25 of those parameters, with and without the query layout") {
    TempDir dir;
    const auto path = build_small_index(dir);
    const auto idx = quoted(path);
    const std::string query = "zebras apples running";
    const auto plain = json_hits(run_invidx(dir, "search " + idx + " " + query + " --format json"));
    const auto other = json_hits(run_invidx(dir, "search " + idx + " " + query + " --k1 1.2 --b 0.75 --format json"));
    CHECK(plain == library_hits(path, query, std::nullopt, std::nullopt));
    CHECK(other == library_hits(path, query, 1.2, 0.75));
    CHECK(other != plain);
    // The defaults given explicitly are the defaults; one flag alone keeps the other's default.
    CHECK(json_hits(run_invidx(dir, "search " + idx + " " + query + " --k1 0.9 --b 0.4 --format json")) == plain);
    CHECK(json_hits(run_invidx(dir, "search " + idx + " " + query + " --b 0 --format json")) ==
          library_hits(path, query, std::nullopt, 0.0));
    CHECK(json_hits(run_invidx(dir, "search " + idx + " " + query + " --k1 0 --format json")) ==
          library_hits(path, query, 0.0, std::nullopt));
    // The query layout (block maxima made with 0.9, 0.4) changes nothing, AND included.
    REQUIRE(run_invidx(dir, "merge " + idx + " --layout query").exit_code == 0);
    CHECK(json_hits(run_invidx(dir, "search " + idx + " " + query + " --k1 1.2 --b 0.75 --format json")) == other);
    CHECK(json_hits(run_invidx(dir, "search " + idx + " " + query + " --format json")) == plain);
    const auto and_hits = json_hits(run_invidx(dir, "search " + idx + " zebras apples --mode and --k1 2 --b 1 --format json"));
    CHECK(and_hits.size() == 2);
    // --device auto (without a GPU: the CPU) scores the same way.
    CHECK(json_hits(run_invidx(dir, "search " + idx + " " + query + " --k1 1.2 --b 0.75 --device auto --format json")) == other);
}

TEST_CASE("invidx search --k1 --b: bad values, and either with --scoring impact, are usage errors naming the flags") {
    TempDir dir;
    const auto idx = quoted(build_small_index(dir));
    const auto refused = [&](const std::string& flags, const std::string& message) {
        CAPTURE(flags);
        const auto result = run_invidx(dir, "search " + idx + " apples " + flags);
        CHECK(result.exit_code == 2);
        CHECK(result.out.empty());
        CHECK(result.err.find(message) != std::string::npos);
    };
    refused("--k1 -1", "--k1 must be a finite number >= 0, not '-1'");
    refused("--k1 abc", "--k1 must be a finite number >= 0, not 'abc'");
    refused("--k1 inf", "--k1 must be a finite number >= 0, not 'inf'");
    refused("--k1 nan", "--k1 must be a finite number >= 0, not 'nan'");
    refused("--k1 1.2x", "--k1 must be a finite number >= 0, not '1.2x'");
    refused("--b 1.5", "--b must be a number from 0 to 1, not '1.5'");
    refused("--b -0.1", "--b must be a number from 0 to 1, not '-0.1'");
    for (const std::string flags : {"--scoring impact --k1 1.2", "--b 0.5 --scoring impact"}) {
        CAPTURE(flags);
        const auto result = run_invidx(dir, "search " + idx + " apples " + flags);
        CHECK(result.exit_code == 2);
        CHECK(result.err.find("--k1 and --b") != std::string::npos);
        CHECK(result.err.find("--scoring impact") != std::string::npos);
    }
    // In range at the edges: fine.
    CHECK(run_invidx(dir, "search " + idx + " apples --k1 0 --b 1").exit_code == 0);
    CHECK(run_invidx(dir, "search " + idx + " apples --k1 1e3 --b 0").exit_code == 0);
}

TEST_CASE("invidx stats: what the query layout holds, in text and json") {
    TempDir dir;
    const auto idx = quoted(build_small_index(dir));
    const auto stats_json = [&] {
        const auto result = run_invidx(dir, "stats --format json " + idx);
        REQUIRE(result.exit_code == 0);
        return nlohmann::json::parse(result.out);
    };
    CHECK(stats_json()["query_layout"].is_null());
    CHECK(run_invidx(dir, "stats " + idx).out.find("query_layout    none\n") != std::string::npos);

    REQUIRE(run_invidx(dir, "merge " + idx + " --layout query --codec pfor").exit_code == 0);
    auto layout = stats_json()["query_layout"];
    CHECK(layout["codec"] == "pfor");
    CHECK(layout["k1"] == 0.9);
    CHECK(layout["b"] == 0.4);
    CHECK(layout["impacts"] == false);
    CHECK(layout["impact_bits"].is_null());
    CHECK(run_invidx(dir, "stats " + idx).out.find("query_layout    codec pfor, block maxima for k1 0.9 b 0.4, no impacts\n") !=
          std::string::npos);

    REQUIRE(run_invidx(dir, "weight " + idx + " --bits 6").exit_code == 0);
    layout = stats_json()["query_layout"];
    CHECK(layout["codec"] == "pfor");
    CHECK(layout["impacts"] == true);
    CHECK(layout["impact_bits"] == 6);
    CHECK(run_invidx(dir, "stats " + idx).out.find("query_layout    codec pfor, block maxima for k1 0.9 b 0.4, 6-bit impacts\n") !=
          std::string::npos);
}
