// `invidx search`: output formats, --queries files, the GPU error, exit codes.
#include <doctest/doctest.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "devices/gpu_devices.hpp"
#include "query/searcher.hpp"
#include "support/collections.hpp"
#include "support/run_tool.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {


std::string quoted(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

// The collection of `invidx search --help`'s example: terms appl, run, zebra.
std::filesystem::path build_small_index(const TempDir& dir) {
    const auto input = dir.write("in/docs.jsonl",
                                 "{\"id\": \"doc-a\", \"contents\": \"apples apples\"}\n"
                                 "{\"id\": \"doc-b\", \"contents\": \"running\"}\n"
                                 "{\"id\": \"7\", \"contents\": \"apples zebras zebras the zebras\"}\n");
    build_index(standard_pipeline({input.string()}, dir / "idx", 1, 1));
    return dir / "idx";
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

}  // namespace

TEST_CASE("invidx search: text output is --help's example") {
    TempDir dir;
    const auto idx = quoted(build_small_index(dir));
    const auto result = run_invidx(dir, "search " + idx + " zebras apples --k 2");
    CHECK(result.exit_code == 0);
    CHECK(result.out == "1  7      1.758825  2\n2  doc-a  0.626986  0\n");
    // AND: only document 7 has both.
    CHECK(run_invidx(dir, "search " + idx + " zebras apples --mode and").out == "1  7  1.758825  2\n");
    CHECK(run_invidx(dir, "search " + idx + " the").out == "no results\n");
    // and-or: AND when it finds k documents, else the OR ranking.
    CHECK(run_invidx(dir, "search " + idx + " zebras apples --mode and-or --k 1").out == "1  7  1.758825  2\n");
    CHECK(run_invidx(dir, "search " + idx + " zebras apples --mode and-or --k 2").out ==
          "1  7      1.758825  2\n2  doc-a  0.626986  0\n");
    const auto json_out = run_invidx(dir, "search " + idx + " zebras apples --mode and-or --k 2 --format json");
    CHECK(json_out.out.find("\"answered_as\": \"or\"") != std::string::npos);
}

TEST_CASE("invidx search: trec lines, json, and a --queries file in input order") {
    TempDir dir;
    const auto idx = quoted(build_small_index(dir));
    const auto trec = run_invidx(dir, "search " + idx + " apples zebras --format trec");
    CHECK(trec.exit_code == 0);
    CHECK(trec.out == "1 Q0 7 1 1.758825 invidx\n1 Q0 doc-a 2 0.626986 invidx\n");

    const auto queries = dir.write("topics.tsv", "q3\tzebras\n\n401\trunning apples\r\nq2\tthe\nq1\tapples zebras\n");
    const auto batch = run_invidx(dir, "search " + idx + " --queries " + quoted(queries) + " --format trec --run-tag bm25 --k 1");
    CHECK(batch.exit_code == 0);
    const auto lines = lines_of(batch.out);
    REQUIRE(lines.size() == 3);  // q2 (a stop word) has no result
    CHECK(lines[0].starts_with("q3 Q0 7 1 "));
    CHECK(lines[1].starts_with("401 Q0 doc-b 1 "));
    CHECK(lines[2] == "q1 Q0 7 1 1.758825 bm25");

    // The same scores as the library, in json.
    const auto json_run = run_invidx(dir, "search " + idx + " --queries " + quoted(queries) + " --format json");
    REQUIRE(json_run.exit_code == 0);
    const auto parsed = nlohmann::json::parse(json_run.out);
    REQUIRE(parsed.size() == 4);
    CHECK(parsed[2]["qid"] == "q2");
    CHECK(parsed[2]["results"].empty());
    const IndexReader index(dir / "idx");
    const Searcher searcher(index);
    const auto expected = searcher.search("running apples", {.k = 10});
    REQUIRE(parsed[1]["results"].size() == expected.hits.size());
    for (size_t r = 0; r < expected.hits.size(); ++r) {
        CHECK(parsed[1]["results"][r]["rank"] == r + 1);
        CHECK(parsed[1]["results"][r]["docid"] == expected.hits[r].docid);
        CHECK(parsed[1]["results"][r]["name"] == index.document(expected.hits[r].docid).name);
        CHECK(parsed[1]["results"][r]["score"].get<double>() == expected.hits[r].score);
    }
}

TEST_CASE("invidx search: errors and exit codes") {
    TempDir dir;
    const auto idx = quoted(build_small_index(dir));
    const auto gpu = run_invidx(dir, "search " + idx + " apples --device gpu");
    const auto cpu = run_invidx(dir, "search " + idx + " apples --device cpu");
    if (invidx::list_gpus().devices.empty()) {
        // No silent CPU fallback: a clear error.
        CHECK(gpu.exit_code == 2);
        CHECK(gpu.err.find("--device gpu:0: no usable GPU: " + invidx::list_gpus().note) != std::string::npos);
    } else {
        CHECK(gpu.exit_code == 0);
        CHECK(gpu.out == cpu.out);
    }
    const auto gpu_phrase = run_invidx(dir, "search " + idx + " '\"red apples\"' --device gpu");
    CHECK(gpu_phrase.exit_code == 2);
    const auto automatic = run_invidx(dir, "search " + idx + " apples --device auto");
    CHECK(automatic.exit_code == 0);
    CHECK(automatic.out == cpu.out);

    const auto bad = dir.write("bad.tsv", "1\tapples\nno tab here\n");
    const auto no_tab = run_invidx(dir, "search " + idx + " --queries " + quoted(bad));
    CHECK(no_tab.exit_code == 2);
    CHECK(no_tab.err.find("line 2") != std::string::npos);
    CHECK(run_invidx(dir, "search " + idx + " apples --k 0").exit_code == 2);
    CHECK(run_invidx(dir, "search " + idx + " apples --mode maybe").exit_code == 2);
    CHECK(run_invidx(dir, "search " + idx + " apples --format csv").exit_code == 2);
    // --device gpu:N names a GPU by its ordinal (gpu is gpu:0); anything else is a usage error.
    const auto gpu0 = run_invidx(dir, "search " + idx + " apples --device gpu:0");
    CHECK(gpu0.exit_code == gpu.exit_code);
    CHECK(gpu0.out == gpu.out);
    const auto tpu = run_invidx(dir, "search " + idx + " apples --device tpu");
    CHECK(tpu.exit_code == 2);
    CHECK(tpu.err.find("gpu:N") != std::string::npos);
    CHECK(run_invidx(dir, "search " + idx + " apples --device gpu:x").exit_code == 2);
    CHECK(run_invidx(dir, "search " + idx).exit_code == 2);
    CHECK(run_invidx(dir, "search " + quoted(dir / "missing") + " apples").exit_code == 3);
    CHECK(run_invidx(dir, "stats " + idx + " --format trec").exit_code == 2);  // trec is search's only
}

TEST_CASE("invidx search: a bad query in a --queries batch is named on stderr, the others answered, exit 4") {
    TempDir dir;
    const auto idx = quoted(build_small_index(dir));  // no positions: a phrase cannot run
    const auto queries = dir.write("topics.tsv",
                                   "q1\tzebras\n"
                                   "q2\tunmatched \"quote\n"
                                   "\n"
                                   "q3\tapples\n"
                                   "q4\t\"red apples\"\n"
                                   "q5\trunning\n");
    const std::string batch = "search " + idx + " --queries " + quoted(queries) + " --k 1";
    for (const std::string device : {"cpu", "auto"}) {
        CAPTURE(device);
        const auto trec = run_invidx(dir, batch + " --format trec --device " + device);
        CHECK(trec.exit_code == 4);
        const auto lines = lines_of(trec.out);
        REQUIRE(lines.size() == 3);
        CHECK(lines[0].starts_with("q1 Q0 7 1 "));
        CHECK(lines[1].starts_with("q3 Q0 doc-a 1 "));
        CHECK(lines[2].starts_with("q5 Q0 doc-b 1 "));
        CHECK(trec.err.find("topics.tsv: line 2: query q2: unterminated quote") != std::string::npos);
        CHECK(trec.err.find("topics.tsv: line 5: query q4: phrase \"red apples\" needs positions") != std::string::npos);
    }
    const auto json_run = run_invidx(dir, batch + " --format json");
    CHECK(json_run.exit_code == 4);
    const auto parsed = nlohmann::json::parse(json_run.out);
    REQUIRE(parsed.size() == 5);
    CHECK(parsed[0]["results"].size() == 1);
    CHECK(parsed[1]["qid"] == "q2");
    CHECK(parsed[1]["results"].empty());
    CHECK(parsed[1]["error"].get<std::string>().find("unterminated quote") != std::string::npos);
    CHECK(!parsed[2].contains("error"));
    const auto text = run_invidx(dir, batch);
    CHECK(text.exit_code == 4);
    CHECK(text.out.find("query q2: unmatched \"quote\nerror: unterminated quote") != std::string::npos);
    CHECK(text.out.find("query q5: running\n1  doc-b") != std::string::npos);
    // One query on the command line: its error is the command's, exit 2 as before.
    CHECK(run_invidx(dir, "search " + idx + " 'unmatched \"quote'").exit_code == 2);
}

TEST_CASE("invidx search: --queries - reads the queries from standard input") {
    TempDir dir;
    const auto idx = quoted(build_small_index(dir));
    const auto queries = dir.write("topics.tsv", "q1\tzebras\nq2\trunning\n");
    const auto from_file = run_invidx(dir, "search " + idx + " --queries " + quoted(queries) + " --format trec");
    const auto from_stdin = run_invidx(dir, "search " + idx + " --queries - --format trec < " + quoted(queries));
    CHECK(from_stdin.exit_code == 0);
    CHECK(from_stdin.out == from_file.out);
    CHECK(lines_of(from_stdin.out).size() == 2);
    // Errors name standard input as "stdin".
    const auto bad = run_invidx(dir, "search " + idx + " --queries - < " + quoted(dir.write("bad.tsv", "q1\tx\nq 2\ty\n")));
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("stdin: line 2: qid 'q 2'") != std::string::npos);
}

TEST_CASE("invidx search: a qid with a space is refused before any query runs, naming the line") {
    TempDir dir;
    const auto idx = quoted(build_small_index(dir));
    const auto queries = dir.write("topics.tsv", "q1\tzebras\nq 2\tapples\n");
    const auto run = run_invidx(dir, "search " + idx + " --queries " + quoted(queries) + " --format trec");
    CHECK(run.exit_code == 2);
    CHECK(run.out.empty());
    CHECK(run.err.find("topics.tsv: line 2: qid 'q 2' holds whitespace") != std::string::npos);
}

TEST_CASE("invidx search: Lucene's operators, boosts, syntax errors and weighted query files") {
    TempDir dir;
    const auto idx = quoted(build_small_index(dir));
    // doc-a: apples apples; doc-b: running; 7: apples zebras zebras the zebras.
    const std::string apples_alone = run_invidx(dir, "search " + idx + " apples").out;
    REQUIRE(lines_of(apples_alone).size() == 2);
    // NOT and - prohibit (never a word or a term); the score is apples' alone.
    const auto not_zebras = run_invidx(dir, "search " + idx + " 'apples NOT zebras'");
    CHECK(not_zebras.exit_code == 0);
    CHECK(not_zebras.out == lines_of(apples_alone)[0] + "\n");  // doc-a, as ranked first for apples alone
    CHECK(not_zebras.out.find("doc-a") != std::string::npos);
    CHECK(run_invidx(dir, "search " + idx + " '+apples -zebras'").out == not_zebras.out);
    CHECK(run_invidx(dir, "search " + idx + " -- '-zebras apples'").out == not_zebras.out);
    // AND requires both sides, as --mode and does.
    CHECK(run_invidx(dir, "search " + idx + " 'zebras AND apples'").out == "1  7  1.758825  2\n");
    CHECK(run_invidx(dir, "search " + idx + " '+zebras running'").out.find("doc-b") == std::string::npos);
    // A boost multiplies a term's contribution.
    const auto score_of = [&](const std::string& query, const std::string& name) {
        const auto parsed = nlohmann::json::parse(run_invidx(dir, "search " + idx + " '" + query + "' --format json").out);
        for (const auto& hit : parsed[0]["results"]) {
            if (hit["name"] == name) return hit["score"].get<double>();
        }
        return -1.0;
    };
    CHECK(score_of("apples^3 zebras", "doc-a") == doctest::Approx(3.0 * score_of("apples", "doc-a")).epsilon(1e-12));
    CHECK(score_of("apples^0.5 apples", "doc-a") == doctest::Approx(1.5 * score_of("apples", "doc-a")).epsilon(1e-12));

    // Malformed syntax: a usage error naming the query and the character.
    const auto dangling = run_invidx(dir, "search " + idx + " 'apples AND'");
    CHECK(dangling.exit_code == 2);
    CHECK(dangling.out.empty());
    CHECK(dangling.err.find("syntax error in query 'apples AND' at character 8: AND must be followed by a word or a phrase") !=
          std::string::npos);
    // Parentheses group clauses; an unbalanced one is a syntax error naming its character.
    const auto grouped = run_invidx(dir, "search " + idx + " '+(apples zebras) -(qqabsent)'");
    CHECK(grouped.exit_code == 0);
    CHECK(grouped.out.find("doc-a") != std::string::npos);
    const auto unbalanced = run_invidx(dir, "search " + idx + " 'zebras (apples'");
    CHECK(unbalanced.exit_code == 2);
    CHECK(unbalanced.err.find("syntax error in query 'zebras (apples' at character 8: '(' has no matching ')'") != std::string::npos);
    CHECK(run_invidx(dir, "search " + idx + " 'apples)'").exit_code == 2);
    CHECK(run_invidx(dir, "search " + idx + " 'apples^'").exit_code == 2);

    // In a --queries file a malformed query is reported with its line; the others answered (exit 4).
    const auto tsv = dir.write("q.tsv", "1\tapples NOT zebras\n2\tzebras -\n");
    const auto batch = run_invidx(dir, "search " + idx + " --queries " + quoted(tsv) + " --format trec");
    CHECK(batch.exit_code == 4);
    CHECK(batch.out.find("1 Q0 doc-a 1 ") == 0);
    CHECK(batch.err.find("q.tsv: line 2: query 2: syntax error in query 'zebras -' at character 8") != std::string::npos);

    // Weighted queries: terms verbatim (the index's stemmed terms), weights as boosts.
    const auto vectors = dir.write("q.jsonl",
                                   "{\"qid\": \"v1\", \"vector\": {\"zebra\": 2, \"appl\": 1}}\n"
                                   "{\"id\": 5, \"vector\": {\"run\": 0.5}}\n"
                                   "{\"qid\": \"v3\", \"vector\": {\"zebras\": 1}}\n");
    const auto weighted = run_invidx(dir, "search " + idx + " --queries " + quoted(vectors) + " --format trec");
    CHECK(weighted.exit_code == 0);
    const auto text_form = lines_of(run_invidx(dir, "search " + idx + " 'zebras^2 apples' --format trec").out);
    const auto weighted_lines = lines_of(weighted.out);
    REQUIRE(weighted_lines.size() == 3);  // v1: 7 and doc-a; 5: doc-b; v3: "zebras" is no term
    REQUIRE(text_form.size() == 2);
    CHECK(weighted_lines[0] == "v1" + text_form[0].substr(1));  // the same ranking and scores as zebras^2 apples
    CHECK(weighted_lines[1] == "v1" + text_form[1].substr(1));
    CHECK(weighted_lines[2].find("5 Q0 doc-b 1 ") == 0);
    // On the GPU too where there is one (the same hits); a bad line stops the run before any query.
    const auto bad = dir.write("bad.jsonl", "{\"qid\": \"v1\", \"vector\": {\"zebra\": 2}}\n{\"qid\": \"v2\", \"vector\": {\"zebra\": -2}}\n");
    const auto refused = run_invidx(dir, "search " + idx + " --queries " + quoted(bad));
    CHECK(refused.exit_code == 2);
    CHECK(refused.out.empty());
    CHECK(refused.err.find("bad.jsonl: line 2: query v2: the weight of term 'zebra' must be a positive number") != std::string::npos);
}
