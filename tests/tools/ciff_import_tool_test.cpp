// invidx import-ciff as a user runs it: an index built by the standard
// pipeline, exported, imported and exported again gives the same bytes and
// the same search results; stats, term, doc and check work on the import;
// a bad file exits 3 naming its byte and publishes nothing; --impacts tf
// makes the tfs the impacts of `search --scoring impact`.
#include <doctest/doctest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/run_tool.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"

using invidx::testing::read_file;
using invidx::testing::run_invidx;
using invidx::testing::TempDir;
namespace fs = std::filesystem;

namespace {

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }
std::string quoted_text(const std::string& text) { return "'" + text + "'"; }  // generated words: no quotes in them

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::vector<std::string> generated_texts() {
    std::mt19937 random(31);
    const auto words = invidx::testing::random_words(random, 300);
    return invidx::testing::skewed_documents(random, words, 400, 2.5);
}

}  // namespace

TEST_CASE("invidx import-ciff: export, import, export gives the same bytes and the same rankings") {
    TempDir dir;
    const auto texts = generated_texts();
    const auto built = invidx::testing::build_text_index(dir, texts);
    REQUIRE(run_invidx(dir, "export-ciff " + quoted(built) + " " + quoted(dir / "a.ciff")).exit_code == 0);

    const auto imported = run_invidx(dir, "import-ciff " + quoted(dir / "a.ciff") + " " + quoted(dir / "imported"));
    INFO(imported.err);
    REQUIRE(imported.exit_code == 0);
    CHECK(contains(imported.out, "canonical: export-ciff gives the file back byte for byte"));
    CHECK(contains(imported.out, "stemmer porter, stopwords english (description)"));
    REQUIRE(run_invidx(dir, "export-ciff " + quoted(dir / "imported") + " " + quoted(dir / "b.ciff")).exit_code == 0);
    CHECK(read_file(dir / "a.ciff") == read_file(dir / "b.ciff"));

    // The same analysis, postings and lengths: the same answers.
    const std::vector<std::string> queries = {"the", texts[3].substr(0, 40), texts[17].substr(0, 60), texts[200].substr(0, 25)};
    for (const std::string& query : queries) {
        CAPTURE(query);
        const auto a = run_invidx(dir, "search " + quoted(built) + " --k 20 " + quoted_text(query));
        const auto b = run_invidx(dir, "search " + quoted(dir / "imported") + " --k 20 " + quoted_text(query));
        CHECK(a.exit_code == 0);
        CHECK(a.out == b.out);
    }
    for (const std::string command : {"stats", "check --full"}) {
        const auto result = run_invidx(dir, command + " " + quoted(dir / "imported"));
        CHECK(result.exit_code == 0);
    }
    const auto stats = nlohmann::json::parse(run_invidx(dir, "stats --format json " + quoted(dir / "imported")).out);
    CHECK(stats["documents"] == texts.size());
    // The same docid, name and length; the source is the CIFF file, at its DocRecord.
    const std::string doc = run_invidx(dir, "doc " + quoted(dir / "imported") + " --name d7").out;
    const std::string original = run_invidx(dir, "doc " + quoted(built) + " --name d7").out;
    const auto head = [](const std::string& text) { return text.substr(0, text.find("file:")); };
    CHECK(head(doc) == head(original));
    CHECK(contains(doc, "file: " + (dir / "a.ciff").string()));
    const std::string word = texts[0].substr(0, texts[0].find(' '));
    CHECK(run_invidx(dir, "term " + quoted(dir / "imported") + " " + word).out == run_invidx(dir, "term " + quoted(built) + " " + word).out);
}

TEST_CASE("invidx import-ciff: a bad file exits 3 naming its byte; usage errors exit 2") {
    TempDir dir;
    const auto file = dir.write("bad.ciff", std::string("\x02\x08\x01\x7f", 4));  // a Header, then half a message
    const auto result = run_invidx(dir, "import-ciff " + quoted(file) + " " + quoted(dir / "out"));
    CHECK(result.exit_code == 3);
    CHECK(contains(result.err, "bad.ciff: byte 3: "));
    CHECK_FALSE(fs::exists(dir / "out"));

    CHECK(run_invidx(dir, "import-ciff " + quoted(file)).exit_code == 2);
    CHECK(run_invidx(dir, "import-ciff " + quoted(file) + " " + quoted(dir / "out") + " --analysis klingon").exit_code == 2);
    CHECK(run_invidx(dir, "import-ciff " + quoted(file) + " " + quoted(dir / "out") + " --impacts bm25").exit_code == 2);
    CHECK(run_invidx(dir, "import-ciff " + quoted(dir / "missing.ciff") + " " + quoted(dir / "out")).exit_code == 3);
    CHECK(contains(run_invidx(dir, "--help").out, "import-ciff"));
}

TEST_CASE("invidx import-ciff --analysis verbatim --impacts tf: the tfs are the impacts") {
    TempDir dir;
    // A learned-sparse-like CIFF: wordpiece terms, tfs that are weights.
    const auto built = invidx::testing::build_text_index(dir, {"alpha beta beta", "beta gamma", "gamma gamma gamma alpha"});
    REQUIRE(run_invidx(dir, "export-ciff " + quoted(built) + " " + quoted(dir / "a.ciff") + " --description 'impacts'").exit_code == 0);
    const auto imported = run_invidx(dir, "import-ciff " + quoted(dir / "a.ciff") + " " + quoted(dir / "imp") +
                                              " --analysis verbatim --impacts tf --format json");
    INFO(imported.err);
    REQUIRE(imported.exit_code == 0);
    const auto summary = nlohmann::json::parse(imported.out);
    CHECK(summary["analysis"] == "options");
    CHECK(summary["impact_bits"] == 2);  // the largest tf is 3
    CHECK(summary["description"] == "impacts");

    // gamma: d2 tf 3, d1 tf 1; alpha: d0 1, d2 1. Scores are sums of tfs.
    const auto search = run_invidx(dir, "search " + quoted(dir / "imp") + " --scoring impact --format json 'gamma alpha'");
    INFO(search.err);
    REQUIRE(search.exit_code == 0);
    const auto results = nlohmann::json::parse(search.out).at(0).at("results");
    REQUIRE(results.size() == 3);
    CHECK(results[0]["name"] == "d2");
    CHECK(results[0]["score"].get<double>() == doctest::Approx(4.0));
    CHECK(results[1]["score"].get<double>() == doctest::Approx(1.0));
    CHECK(results[2]["score"].get<double>() == doctest::Approx(1.0));
    // Verbatim: a word is a term as it is, nothing stemmed ("gammas" is not "gamma").
    const auto verbatim = run_invidx(dir, "search " + quoted(dir / "imp") + " --scoring impact --format json gammas");
    REQUIRE(verbatim.exit_code == 0);
    CHECK(nlohmann::json::parse(verbatim.out).at(0).at("results").empty());
    CHECK(run_invidx(dir, "check --full " + quoted(dir / "imp")).exit_code == 0);
}
