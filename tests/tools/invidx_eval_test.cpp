// `invidx eval` run as a user would: its output is trec_eval's, byte for
// byte, on the fixtures in tests/tools/data/eval/ (expected outputs made by
// trec_eval 10.0, commit f4253652c8ef; see the README there), and bad input
// is named with its file and line.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/run_tool.hpp"
#include "support/temp_dir.hpp"

using invidx::testing::read_file;
using invidx::testing::run_invidx;
using invidx::testing::TempDir;
namespace fs = std::filesystem;

namespace {

const fs::path kData = fs::path(INVIDX_SOURCE_DIR) / "tests" / "tools" / "data" / "eval";

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

std::string fixtures() { return quoted(kData / "qrels.txt") + " " + quoted(kData / "run.txt"); }

fs::path write(const TempDir& dir, const std::string& name, const std::string& text) {
    std::ofstream(dir / name, std::ios::binary) << text;
    return dir / name;
}

}  // namespace

TEST_CASE("invidx eval prints what trec_eval prints") {
    TempDir dir;
    const auto official = run_invidx(dir, "eval " + fixtures());
    CHECK(official.exit_code == 0);
    CHECK(official.out == read_file(kData / "expected_official.txt"));
    CHECK(official.err.empty());

    const auto complete = run_invidx(dir, "eval -c " + fixtures());
    CHECK(complete.exit_code == 0);
    CHECK(complete.out == read_file(kData / "expected_official_complete.txt"));

    const auto chosen = run_invidx(dir, "eval " + fixtures() +
                                            " -q -m map -m P.3,5 -m recall.5 -m ndcg_cut.5,11 -m recip_rank -m bpref"
                                            " -m ndcg --measure map_cut.5 -m Rprec");
    CHECK(chosen.exit_code == 0);
    CHECK(chosen.out == read_file(kData / "expected_measures_q.txt"));

    const auto level = run_invidx(dir, "eval -l 2 -m map -m bpref -m P.5 -m ndcg_cut.5 -m num_rel " + fixtures());
    CHECK(level.exit_code == 0);
    CHECK(level.out == read_file(kData / "expected_level2.txt"));
}

TEST_CASE("invidx eval --format json") {
    TempDir dir;
    const auto result = run_invidx(dir, "eval --format json -q -m map -m num_q " + fixtures());
    REQUIRE(result.exit_code == 0);
    const auto json = nlohmann::json::parse(result.out);
    CHECK(json["all"]["num_q"] == 3);
    CHECK(json["all"]["map"].get<double>() == doctest::Approx(0.1837).epsilon(0.001));
    CHECK(json["queries"]["1"]["map"].get<double>() == doctest::Approx(0.4261).epsilon(0.001));
    CHECK(!json["queries"].contains("3"));  // not judged
    CHECK(!json["queries"].contains("7"));  // not retrieved, no -c
}

TEST_CASE("invidx eval: bad files and command lines") {
    TempDir dir;
    const auto qrels = quoted(kData / "qrels.txt");
    const auto run = quoted(kData / "run.txt");

    const auto bad_run = write(dir, "bad_run.txt", "1 Q0 d01 1 3.5 r\n\n1 Q0 d02 2 r\n");
    auto result = run_invidx(dir, "eval " + qrels + " " + quoted(bad_run));
    CHECK(result.exit_code == 2);
    CHECK(result.err == "invidx: " + bad_run.string() + ": line 3: expected 6 fields (qid Q0 docno rank score run_id), found 5\n");
    CHECK(result.out.empty());

    const auto bad_qrels = write(dir, "bad_qrels.txt", "1 0 d01 1\n1 0 d02 yes\n");
    result = run_invidx(dir, "eval " + quoted(bad_qrels) + " " + run);
    CHECK(result.exit_code == 2);
    CHECK(result.err == "invidx: " + bad_qrels.string() + ": line 2: relevance 'yes' is not an integer\n");

    result = run_invidx(dir, "eval " + quoted(dir / "absent.txt") + " " + run);
    CHECK(result.exit_code == 2);
    CHECK(result.err.find("absent.txt: cannot open") != std::string::npos);

    result = run_invidx(dir, "eval -m mrr " + qrels + " " + run);
    CHECK(result.exit_code == 2);
    CHECK(result.err.find("-m: unknown measure 'mrr'") != std::string::npos);

    result = run_invidx(dir, "eval -l 0 " + qrels + " " + run);
    CHECK(result.exit_code == 2);

    result = run_invidx(dir, "eval " + qrels);
    CHECK(result.exit_code == 2);
    CHECK(result.err.find("usage: invidx eval QRELS RUN") != std::string::npos);

    // Judgments for other queries only: nothing to evaluate.
    const auto other = write(dir, "other_qrels.txt", "55 0 x 1\n");
    result = run_invidx(dir, "eval " + quoted(other) + " " + run);
    CHECK(result.exit_code == 1);
    CHECK(result.err.find("no query of") != std::string::npos);
}

TEST_CASE("invidx eval --help") {
    TempDir dir;
    const auto help = run_invidx(dir, "eval --help");
    CHECK(help.exit_code == 0);
    CHECK(help.out.find("Usage: invidx eval QRELS RUN") != std::string::npos);
    CHECK(help.out.find("--measure, -m MEASURE") != std::string::npos);
    CHECK(run_invidx(dir, "--help").out.find("invidx eval QRELS RUN") != std::string::npos);
}
