// Document names, terms, qids and paths are bytes: invidx's outputs must stay
// well-formed whatever they hold (issue #28): JSON valid (bytes that are not
// UTF-8 become U+FFFD), TREC run lines of six fields (whitespace in a name as
// %HH), text with control bytes as \xHH (no raw terminal escapes).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/index_reader.hpp"
#include "support/collections.hpp"
#include "support/run_tool.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;
namespace fs = std::filesystem;

namespace {

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

const std::string kEscapeName = "\x1b[31mred";     // a terminal colour escape
const std::string kSpaceName = "two words";
const std::string kTabName = "tab\there";
const std::string kLatin1Name = "caf\xe9-\xff";     // not UTF-8

// TREC documents keep their <DOCNO> bytes as the name (trimmed only). Every
// document holds "apples".
fs::path build_odd_index(const TempDir& dir) {
    std::string trec;
    int n = 0;
    for (const std::string& name : {kEscapeName, kSpaceName, kTabName, kLatin1Name}) {
        trec += "<DOC>\n<DOCNO> " + name + " </DOCNO>\n<TEXT>\napples word" + std::to_string(n++) + " caf\xe9\n</TEXT>\n</DOC>\n";
    }
    const auto input = dir.write("in/docs.trec", trec);
    build_index(standard_pipeline({input.string()}, dir / "idx", 1, 1));
    return dir / "idx";
}

uint32_t docid_of(const fs::path& index_dir, const std::string& name) {
    const IndexReader index(index_dir);
    const auto docid = index.find_document_by_name(name);
    REQUIRE(docid.has_value());
    return *docid;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

}  // namespace

TEST_CASE("invidx --format json: names, terms, qids and paths that are not UTF-8 give valid JSON") {
    TempDir dir;
    const auto idx = build_odd_index(dir);
    const std::string replaced = "caf\xef\xbf\xbd-\xef\xbf\xbd";  // each bad byte as U+FFFD

    const auto doc = run_invidx(dir, "doc " + quoted(idx) + " " + std::to_string(docid_of(idx, kLatin1Name)) + " --format json");
    REQUIRE(doc.exit_code == 0);
    CHECK(nlohmann::json::parse(doc.out)["name"] == replaced);

    const auto queries = dir.write("q.tsv", "q\xff\tapples\n");
    const auto search = run_invidx(dir, "search " + quoted(idx) + " --queries " + quoted(queries) + " --format json");
    REQUIRE(search.exit_code == 0);
    const auto results = nlohmann::json::parse(search.out);
    CHECK(results[0]["qid"] == "q\xef\xbf\xbd");
    bool named = false;
    for (const auto& hit : results[0]["results"]) named = named || hit["name"] == replaced;
    CHECK(named);

    // The query words are echoed in term's JSON.
    const auto term = run_invidx(dir, "term " + quoted(idx) + " 'apples\xe9' --format json");
    REQUIRE(term.exit_code == 0);
    CHECK(nlohmann::json::parse(term.out)["query"] == "apples\xef\xbf\xbd");

    // An index directory whose name is not UTF-8.
    const fs::path odd_dir = dir / "idx-\xff";
    fs::rename(idx, odd_dir);
    const auto stats = run_invidx(dir, "stats " + quoted(odd_dir) + " --format json");
    REQUIRE(stats.exit_code == 0);
    CHECK(nlohmann::json::parse(stats.out)["documents"] == 4);
    const auto check = run_invidx(dir, "check " + quoted(odd_dir) + " --format json");
    REQUIRE(check.exit_code == 0);
    CHECK(nlohmann::json::parse(check.out)["ok"] == true);
}

TEST_CASE("invidx search --format trec: a name with whitespace is %-escaped, the line keeps six fields") {
    TempDir dir;
    const auto idx = build_odd_index(dir);
    const auto run = run_invidx(dir, "search " + quoted(idx) + " apples --format trec");
    REQUIRE(run.exit_code == 0);
    const auto lines = lines_of(run.out);
    REQUIRE(lines.size() == 4);
    std::vector<std::string> names;
    for (const auto& line : lines) {
        std::istringstream fields(line);
        std::vector<std::string> words;
        for (std::string word; fields >> word;) words.push_back(word);
        REQUIRE(words.size() == 6);
        names.push_back(words[2]);
    }
    CHECK(std::find(names.begin(), names.end(), "two%20words") != names.end());
    CHECK(std::find(names.begin(), names.end(), "tab%09here") != names.end());
    CHECK(std::find(names.begin(), names.end(), "%1b[31mred") != names.end());
    CHECK(std::find(names.begin(), names.end(), kLatin1Name) != names.end());  // no whitespace: as it is
}

TEST_CASE("invidx text output prints control bytes of names and terms as \\xHH") {
    TempDir dir;
    const auto idx = build_odd_index(dir);
    const auto doc = run_invidx(dir, "doc " + quoted(idx) + " " + std::to_string(docid_of(idx, kEscapeName)));
    REQUIRE(doc.exit_code == 0);
    CHECK(doc.out.find("name: \\x1b[31mred\n") != std::string::npos);
    CHECK(doc.out.find('\x1b') == std::string::npos);

    const auto search = run_invidx(dir, "search " + quoted(idx) + " apples");
    REQUIRE(search.exit_code == 0);
    CHECK(search.out.find("\\x1b[31mred") != std::string::npos);
    CHECK(search.out.find("tab\\x09here") != std::string::npos);
    CHECK(search.out.find("caf\\xe9-\\xff") != std::string::npos);
    CHECK(search.out.find('\x1b') == std::string::npos);
    CHECK(lines_of(search.out).size() == 4);

    // A stop word with an escape: no term, the words echoed escaped.
    const auto term = run_invidx(dir, "term " + quoted(idx) + " 'the\x1b'");
    CHECK(term.exit_code == 1);
    CHECK(term.out.find("'the\\x1b' analyzes to no term") != std::string::npos);
}

TEST_CASE("invidx check --format json prints one object: ok, what was checked, the errors") {
    TempDir dir;
    const auto idx = build_odd_index(dir);
    const auto sound = run_invidx(dir, "check " + quoted(idx) + " --full --format json");
    REQUIRE(sound.exit_code == 0);
    const auto report = nlohmann::json::parse(sound.out);
    CHECK(report["ok"] == true);
    CHECK(report["full"] == true);
    CHECK(report["errors"].empty());
    CHECK(report["checked"]["documents"] == 4);
    CHECK(report["checked"]["files"].get<uint64_t>() > 0);

    // A damaged run file (one byte flipped): exit 3, the problem listed.
    const fs::path run = idx / "runs" / "run-000000.post";
    std::string bytes = read_file(run);
    REQUIRE(bytes.size() > 64);
    bytes[bytes.size() / 2] ^= 0x5A;
    std::ofstream(run, std::ios::binary | std::ios::trunc) << bytes;
    const auto damaged = run_invidx(dir, "check " + quoted(idx) + " --full --format json");
    CHECK(damaged.exit_code == 3);
    const auto bad = nlohmann::json::parse(damaged.out);
    CHECK(bad["ok"] == false);
    CHECK(!bad["errors"].empty());
}
