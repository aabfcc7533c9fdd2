// The evaluation library (evaluation/) against trec_eval: the fixtures in
// tests/tools/data/eval/ and the expected outputs beside them were produced
// by trec_eval 10.0 (github.com/usnistgov/trec_eval, commit f4253652c8ef,
// "Updating CHANGELOG for version 10.0"); see the README there.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "evaluation/evaluate.hpp"
#include "evaluation/input_error.hpp"
#include "evaluation/judged_ranking.hpp"
#include "evaluation/measure_set.hpp"
#include "evaluation/qrels.hpp"
#include "evaluation/report.hpp"
#include "evaluation/run_file.hpp"
#include "support/temp_dir.hpp"

namespace ev = invidx::evaluation;
namespace fs = std::filesystem;

namespace {

const fs::path kData = fs::path(INVIDX_SOURCE_DIR) / "tests" / "tools" / "data" / "eval";

ev::Qrels qrels_from(const std::string& text) {
    std::istringstream in(text);
    return ev::parse_qrels(in, "qrels.txt");
}

ev::Run run_from(const std::string& text) {
    std::istringstream in(text);
    return ev::parse_run(in, "run.txt");
}

// The message of the InputError that parsing `text` throws.
template <typename Parse>
std::string input_error(Parse parse, const std::string& text) {
    try {
        parse(text);
    } catch (const ev::InputError& error) {
        return error.what();
    }
    return "(no error)";
}

std::string measure_error(const std::vector<std::string>& specs) {
    try {
        ev::parse_measures(specs);
    } catch (const std::invalid_argument& error) {
        return error.what();
    }
    return "(no error)";
}

std::string fixture_text(const std::vector<std::string>& specs, ev::EvaluationOptions options, bool per_query) {
    const auto measures = specs.empty() ? ev::official_measures() : ev::parse_measures(specs);
    const auto evaluation = ev::evaluate(ev::read_qrels(kData / "qrels.txt"), ev::read_run(kData / "run.txt"), measures, options);
    return ev::trec_eval_text(evaluation, per_query);
}

// The "all" value of one measure.
double summary_value(const ev::Evaluation& evaluation, const std::string& name) {
    for (const auto& value : evaluation.summary) {
        if (value.name == name) return std::get<double>(value.value);
    }
    FAIL("no value " << name);
    return 0;
}

}  // namespace

TEST_CASE("evaluation: trec_eval's default measures on the fixture, as trec_eval prints them") {
    // The run lacks judged query 7: skipped (trec_eval 9 skips it; 10 stops).
    CHECK(fixture_text({}, {}, false) == invidx::testing::read_file(kData / "expected_official.txt"));
}

TEST_CASE("evaluation: -c counts the judged query the run lacks") {
    CHECK(fixture_text({}, {.relevance_level = 1, .complete = true}, false) ==
          invidx::testing::read_file(kData / "expected_official_complete.txt"));
}

TEST_CASE("evaluation: chosen measures per query, then all") {
    const std::vector<std::string> specs = {"map", "P.3,5", "recall.5", "ndcg_cut.5,11", "recip_rank",
                                            "bpref", "ndcg", "map_cut.5", "Rprec"};
    CHECK(fixture_text(specs, {}, true) == invidx::testing::read_file(kData / "expected_measures_q.txt"));
}

TEST_CASE("evaluation: relevance level 2 (-l 2)") {
    const std::vector<std::string> specs = {"map", "bpref", "P.5", "ndcg_cut.5", "num_rel"};
    CHECK(fixture_text(specs, {.relevance_level = 2, .complete = false}, false) ==
          invidx::testing::read_file(kData / "expected_level2.txt"));
}

TEST_CASE("evaluation: values worked by hand") {
    // Relevant at ranks 1 (level 2) and 3 (level 1) of 4; one more judged
    // relevant document never retrieved.
    const auto qrels = qrels_from("q 0 a 2\nq 0 b 0\nq 0 c 1\nq 0 z 1\n");
    const auto run = run_from("q Q0 a 1 4 r\nq Q0 b 2 3 r\nq Q0 c 3 2 r\nq Q0 u 4 1 r\n");
    const auto result = ev::evaluate(qrels, run, ev::parse_measures(std::vector<std::string>{"map", "P.2", "recall.3", "recip_rank", "ndcg_cut.3", "bpref"}), {});
    CHECK(summary_value(result, "map") == doctest::Approx((1.0 + 2.0 / 3.0) / 3.0));
    CHECK(summary_value(result, "P_2") == doctest::Approx(0.5));
    CHECK(summary_value(result, "recall_3") == doctest::Approx(2.0 / 3.0));
    CHECK(summary_value(result, "recip_rank") == doctest::Approx(1.0));
    // DCG@3 = 2 + 1/log2(4); ideal: 2, 1, 1.
    CHECK(summary_value(result, "ndcg_cut_3") ==
          doctest::Approx((2.0 + 1.0 / 2.0) / (2.0 + 1.0 / std::log2(3.0) + 1.0 / 2.0)));
    // bpref: a has no non-relevant above (1), c has b above: 1 - 1/min(1, 3).
    CHECK(summary_value(result, "bpref") == doctest::Approx((1.0 + 0.0) / 3.0));
}

TEST_CASE("evaluation: ties rank by score, then docno descending, whatever the rank column") {
    const auto qrels = qrels_from("1 0 a 1\n1 0 b 0\n");
    const auto run = run_from("1 Q0 a 1 2.0 r\n1 Q0 b 2 2 r\n1 Q0 c 3 1 r\n");
    const auto ranking = ev::judge_ranking(run.topics.at("1"), qrels.topics.at("1"), 1);
    CHECK(ranking.levels == std::vector<long>{0, 1, ev::kNotInQrels});
    const auto result = ev::evaluate(qrels, run, ev::parse_measures(std::vector<std::string>{"recip_rank", "P.1"}), {});
    CHECK(summary_value(result, "recip_rank") == doctest::Approx(0.5));  // trec_eval 10.0 prints 0.5000
    CHECK(summary_value(result, "P_1") == 0.0);
}

TEST_CASE("evaluation: queries that count") {
    // 2 has no relevant document (counts, scoring 0), 3 has no judgments
    // (skipped), 4 is judged but not retrieved (skipped unless complete).
    const auto qrels = qrels_from("1 0 a 1\n2 0 b 0\n4 0 d 1\n");
    const auto run = run_from("1 Q0 a 1 1 r\n2 Q0 b 1 1 r\n3 Q0 c 1 1 r\n");
    const auto measures = ev::parse_measures(std::vector<std::string>{"num_q", "map"});
    const auto some = ev::evaluate(qrels, run, measures, {});
    REQUIRE(some.queries.size() == 2);
    CHECK(some.queries[0].qid == "1");
    CHECK(some.queries[1].qid == "2");
    CHECK(summary_value(some, "map") == doctest::Approx(0.5));
    const auto all = ev::evaluate(qrels, run, measures, {.relevance_level = 1, .complete = true});
    REQUIRE(all.queries.size() == 3);
    CHECK(all.queries[2].qid == "4");
    CHECK(std::get<long>(all.summary[0].value) == 3);
    CHECK(summary_value(all, "map") == doctest::Approx(1.0 / 3.0));
}

TEST_CASE("evaluation: qrels lines") {
    const auto parse = [](const std::string& text) { return qrels_from(text); };
    CHECK(input_error(parse, "1 0 a 1\n1 0 b\n") == "qrels.txt: line 2: expected 4 fields (qid iter docno relevance), found 3");
    CHECK(input_error(parse, "1 0 a 1 x\n") == "qrels.txt: line 1: expected 4 fields (qid iter docno relevance), found 5");
    CHECK(input_error(parse, "\n1 0 a high\n") == "qrels.txt: line 2: relevance 'high' is not an integer");
    CHECK(input_error(parse, "1 0 a 1\n1 0 a 2\n") == "qrels.txt: line 2: document 'a' is judged twice for query '1'");
    CHECK(input_error(parse, "# nothing\n\n") == "qrels.txt: holds no judgments");
    // Comments, blank lines, tabs and CRLF line ends are fine; a negative
    // level is kept (pooled, not judged).
    const auto qrels = qrels_from("# judged by hand\r\n1\t0\ta\t2\r\n\r\n1 0 b -1\r\n2 0 a +1\n");
    REQUIRE(qrels.topics.size() == 2);
    CHECK(qrels.topics.at("1").at("a") == 2);
    CHECK(qrels.topics.at("1").at("b") == -1);
    CHECK(qrels.topics.at("2").at("a") == 1);
}

TEST_CASE("evaluation: run lines") {
    const auto parse = [](const std::string& text) { return run_from(text); };
    CHECK(input_error(parse, "1 Q0 a 1 2.5 r\n1 Q0 b 2 2.0\n") ==
          "run.txt: line 2: expected 6 fields (qid Q0 docno rank score run_id), found 5");
    CHECK(input_error(parse, "1 Q0 a 1 high r\n") == "run.txt: line 1: score 'high' is not a finite number");
    CHECK(input_error(parse, "1 Q0 a 1 nan r\n") == "run.txt: line 1: score 'nan' is not a finite number");
    CHECK(input_error(parse, "1 Q0 a 1 2 r\n2 Q0 a 1 2 r\n1 Q0 a 3 1 r\n") ==
          "run.txt: line 3: document 'a' is retrieved twice for query '1'");
    CHECK(input_error(parse, "") == "run.txt: holds no results");
    // Extra fields are ignored; the run id is the last line's.
    const auto run = run_from("1 Q0 a 1 -2.5e1 first extra\n# a comment\n2 Q0 b 1 +3 second\n");
    CHECK(run.run_id == "second");
    CHECK(run.topics.at("1").at(0).score == -25.0);
    CHECK(run.topics.at("2").at(0).score == 3.0);
}

TEST_CASE("evaluation: missing files name themselves") {
    const std::string message = input_error([](const std::string& path) { return ev::read_run(path); }, "/nonexistent/run.txt");
    CHECK(message.starts_with("/nonexistent/run.txt: cannot open"));
}

TEST_CASE("evaluation: measure names and parameters") {
    const auto set = ev::parse_measures(std::vector<std::string>{"ndcg_cut.10,5", "map", "P.20", "P.5,20", "iprec_at_recall.0.5,0.25"});
    REQUIRE(set.measures.size() == 4);  // in trec_eval's order: map, iprec_at_recall, P, ndcg_cut
    CHECK(set.measures[0].measure == ev::Measure::kMap);
    CHECK(ev::value_names(set.measures[1]) == std::vector<std::string>{"iprec_at_recall_0.25", "iprec_at_recall_0.50"});
    CHECK(ev::value_names(set.measures[2]) == std::vector<std::string>{"P_5", "P_20"});
    CHECK(ev::value_names(set.measures[3]) == std::vector<std::string>{"ndcg_cut_5", "ndcg_cut_10"});
    const auto defaults = ev::parse_measures(std::vector<std::string>{"recall"});
    CHECK(defaults.measures[0].cutoffs == std::vector<long>{5, 10, 15, 20, 30, 100, 200, 500, 1000});
    CHECK(ev::official_measures().measures.size() == 12);

    CHECK(measure_error({"MAP"}).starts_with("unknown measure 'MAP'; known: official, runid"));
    CHECK(measure_error({"map.5"}) == "measure 'map.5': map takes no parameters");
    CHECK(measure_error({"P.0"}) == "measure 'P.0': cutoff '0' is not a positive integer");
    CHECK(measure_error({"P.5,x"}) == "measure 'P.5,x': cutoff 'x' is not a positive integer");
    CHECK(measure_error({"P."}) == "measure 'P.': nothing after the '.'");
    CHECK(measure_error({"iprec_at_recall.2"}) == "measure 'iprec_at_recall.2': recall level '2' is not a number from 0 to 1");
    CHECK(measure_error({"ndcg.1=3"}).find("not supported") != std::string::npos);
}

TEST_CASE("evaluation: JSON report") {
    const auto qrels = qrels_from("1 0 a 1\n");
    const auto run = run_from("1 Q0 a 1 1 r\n");
    const auto result = ev::evaluate(qrels, run, ev::parse_measures(std::vector<std::string>{"num_ret", "map"}), {});
    const auto json = ev::evaluation_json(result, true);
    CHECK(json["all"]["num_ret"] == 1);
    CHECK(json["all"]["map"] == 1.0);
    CHECK(json["queries"]["1"]["map"] == 1.0);
    CHECK(!ev::evaluation_json(result, false).contains("queries"));
}
