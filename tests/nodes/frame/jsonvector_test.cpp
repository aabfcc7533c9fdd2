// Pre-weighted documents (FORMAT.md "Pre-weighted documents (jsonvector)"):
// the jsonvector framer's canonical vectors and its errors, and the
// analyzer's verbatim reading of them.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/analyzer.hpp"
#include "analysis/collection.hpp"
#include "framed_records.hpp"
#include "invidx/error.hpp"

using invidx::testing::frame_whole;
using invidx::testing::Record;
using invidx::testing::same_records_at_every_split;

namespace {

std::string error_of(const std::string& input, invidx::ErrorContext* context = nullptr) {
    return invidx::testing::framing_error("jsonvector", input, context);
}

invidx::AnalysisSettings pre_weighted(uint32_t scale = 100) {
    auto settings = invidx::AnalysisSettings::defaults();
    settings.pre_weighted = true;
    settings.vector_scale = scale;
    return settings;
}

// The terms the analyzer of a pre-weighted build reads from a framed text.
std::map<std::string, uint32_t> terms_of(const std::string& text, uint32_t* length = nullptr) {
    invidx::Analyzer analyzer(pre_weighted());
    invidx::DocumentTerms terms;
    analyzer.analyze(text, false, terms);
    std::map<std::string, uint32_t> tfs;
    for (const auto& term : terms.terms) {
        CHECK(term.collection == invidx::collection_of(terms.term(term)));
        CHECK(tfs.emplace(std::string(terms.term(term)), term.tf).second);
    }
    if (length) *length = terms.length;
    CHECK(terms.positions.empty());
    return tfs;
}

}  // namespace

TEST_CASE("jsonvector: each line's vector becomes canonical {term: tf} text; names as jsonl; other fields kept aside") {
    const std::string line0 = R"({"id": "d0", "vector": {"the": 3, "Running": 7, "##ing": 1, "\u00e9t\u00e9": 2}})";
    const std::string line2 = R"({"vector": {"b": 0, "a": 12}, "id": 42, "contents": "kept as metadata"})";
    const std::string line3 = R"({"id": "empty", "vector": {}})";
    const std::string input = line0 + "\n\n" + line2 + "\n" + line3;
    const uint64_t offset2 = line0.size() + 2;
    const std::vector<Record> expected = {
        {"d0", "{\"##ing\":1,\"Running\":7,\"the\":3,\"\xC3\xA9t\xC3\xA9\":2}", false, 0, 0},
        {"42", "{\"a\":12}", false, offset2, 2},  // weight 0: the term is not in the document
        {"empty", "{}", false, offset2 + line2.size() + 1, 3},
    };
    CHECK(frame_whole("jsonvector", input) == expected);
    CHECK(same_records_at_every_split("jsonvector", input));

    std::string metadata;
    auto framer = invidx::make_framer("jsonvector", "entry", invidx::AnalysisSettings::defaults());
    framer->feed(line2 + "\n", [&](const invidx::FramedRecord& record) { metadata = std::string(record.metadata); });
    framer->finish([](const invidx::FramedRecord&) {});
    CHECK(metadata == R"({"contents":"kept as metadata"})");
}

TEST_CASE("jsonvector: float weights are round(w x scale), halves away from zero; those rounding to 0 are dropped") {
    const std::string input = R"({"id": "f", "vector": {"a": 2.5, "b": 0.004, "c": 0.006, "d": 1.0, "e": 1e-3, "g": 3}})";
    CHECK(frame_whole("jsonvector", input) ==
          std::vector<Record>{{"f", R"({"a":250,"c":1,"d":100,"g":3})", false, 0, 0}});
    CHECK(frame_whole("jsonvector", input, pre_weighted(1000)) ==
          std::vector<Record>{{"f", R"({"a":2500,"b":4,"c":6,"d":1000,"e":1,"g":3})", false, 0, 0}});
    CHECK(frame_whole("jsonvector", R"({"id": "h", "vector": {"x": 0.125, "y": 0.375}})", pre_weighted(4)) ==
          std::vector<Record>{{"h", R"({"x":1,"y":2})", false, 0, 0}});  // 0.5 -> 1, 1.5 -> 2
    // The largest tf there is, exactly.
    CHECK(frame_whole("jsonvector", R"({"id": "m", "vector": {"x": 4294967295}})") ==
          std::vector<Record>{{"m", R"({"x":4294967295})", false, 0, 0}});
}

TEST_CASE("jsonvector: every bad line is an error naming the entry, the line and its byte offset") {
    const std::string good = R"({"id": "a", "vector": {"x": 1}})";
    const auto check_error = [&](const std::string& bad_line, const std::string& message) {
        CAPTURE(bad_line);
        invidx::ErrorContext context;
        const std::string got = error_of(good + "\n\n" + bad_line + "\n" + good, &context);
        CHECK(got.rfind("line 3: " + message, 0) == 0);
        CHECK(context.file == "entry");
        CHECK(context.record == 2);
        CHECK(context.byte_offset == good.size() + 2);
        return got;
    };
    check_error(R"({"id": "b", "vector": {"x": 1})", "not valid JSON");
    check_error(R"({"id": "b"})", "object has no \"vector\"");
    CHECK(error_of(R"({"id": "b", "contents": "text"})") ==
          "line 1: object has no \"vector\" (a text document in a pipeline of pre-weighted documents)");
    check_error(R"({"vector": {"x": 1}})", "object has no \"id\"");
    check_error(R"({"id": "b", "vector": [["x", 1]]})", "\"vector\" must be an object of term weights, not a array");
    check_error(R"({"id": "b", "vector": "x:1"})", "\"vector\" must be an object of term weights, not a string");
    check_error(R"({"id": "b", "vector": {"x": "1"}})", "the weight of term \"x\" must be a number, not a string");
    check_error(R"({"id": "b", "vector": {"x": true}})", "the weight of term \"x\" must be a number, not a boolean");
    check_error(R"({"id": "b", "vector": {"x": null}})", "the weight of term \"x\" must be a number, not a null");
    check_error(R"({"id": "b", "vector": {"x": -2}})", "the weight of term \"x\" is negative (-2)");
    check_error(R"({"id": "b", "vector": {"x": -0.001}})", "the weight of term \"x\" is negative (-0.001)");
    check_error(R"({"id": "b", "vector": {"x": 4294967296}})", "the weight of term \"x\" (4294967296) is larger than 4294967295");
    check_error(R"({"id": "b", "vector": {"x": 42949673.0}})", "the weight of term \"x\" (42949673.0) times the scale 100");
    check_error(R"({"id": "b", "vector": {"x": 1e300}})", "the weight of term \"x\"");
    check_error(R"({"id": "b", "vector": {"x": 4000000000, "y": 300000000}})",
                "the document length (the sum of its tfs) is larger than 4294967295");
    check_error(R"({"id": "b", "vector": {"": 1}})", "a term of \"vector\" is empty");
    const std::string long_term(256, 'q');
    check_error(R"({"id": "b", "vector": {")" + long_term + R"(": 1}})",
                                            "term \"" + long_term.substr(0, 40) + "\"... is 256 bytes long; at most 255");
    // Ill-formed UTF-8, raw or as a lone surrogate escape, stops the line's JSON.
    CHECK(check_error("{\"id\": \"b\", \"vector\": {\"ab\xFF\": 1}}", "not valid JSON").find("UTF-8") != std::string::npos);
    check_error(R"({"id": "b", "vector": {"\ud800": 1}})", "not valid JSON");
}

TEST_CASE("jsonvector: terms of 255 bytes, odd bytes and any case are taken as they are") {
    const std::string term255(255, 'z');
    const std::string input = R"({"id": "t", "vector": {")" + term255 + R"(": 2, "a b": 1, "tab\t": 1, "\u0000nul": 1}})";
    const auto records = frame_whole("jsonvector", input);
    REQUIRE(records.size() == 1);
    uint32_t length = 0;
    const auto terms = terms_of(records[0].text, &length);
    CHECK(terms == std::map<std::string, uint32_t>{{term255, 2}, {"a b", 1}, {"tab\t", 1}, {std::string("\0nul", 4), 1}});
    CHECK(length == 5);
}

TEST_CASE("jsonvector: a pre-weighted analyzer reads terms verbatim with tf = weight, length = sum of weights") {
    const auto records =
        frame_whole("jsonvector", R"({"id": "d", "vector": {"Running": 255, "##ing": 3, "the": 1, "東京": 40, "cat's": 0.5}})");
    REQUIRE(records.size() == 1);
    uint32_t length = 0;
    CHECK(terms_of(records[0].text, &length) ==
          std::map<std::string, uint32_t>{{"Running", 255}, {"##ing", 3}, {"the", 1}, {"東京", 40}, {"cat's", 50}});
    CHECK(length == 255 + 3 + 1 + 40 + 50);

    // 300 terms of weight 255: tfs, not 76,500 token occurrences.
    nlohmann::json vector = nlohmann::json::object();
    for (int i = 0; i < 300; ++i) vector["term" + std::to_string(i)] = 255;
    const auto big = frame_whole("jsonvector", nlohmann::json{{"id", "big"}, {"vector", vector}}.dump());
    REQUIRE(big.size() == 1);
    invidx::Analyzer analyzer(pre_weighted());
    invidx::DocumentTerms terms;
    analyzer.analyze(big[0].text, false, terms);
    CHECK(terms.terms.size() == 300);
    CHECK(terms.length == 300 * 255);
    for (const auto& term : terms.terms) CHECK(term.tf == 255);

    // Text that is no canonical vector is refused, never indexed as something else.
    CHECK_THROWS_AS(analyzer.analyze("plain words", false, terms), invidx::Error);
    CHECK_THROWS_AS(analyzer.analyze(R"({"a":0})", false, terms), invidx::Error);
    CHECK_THROWS_AS(analyzer.analyze(R"({"a":1.5})", false, terms), invidx::Error);
    CHECK_THROWS_AS(analyzer.analyze(R"({"a":{"b":1}})", false, terms), invidx::Error);
}

TEST_CASE("jsonvector: queries on a pre-weighted index are split at whitespace only, words verbatim") {
    invidx::Analyzer analyzer(pre_weighted());
    CHECK(analyzer.analyze_query("  Running ##ing\tthe\n東京 cat's ") ==
          std::vector<std::string>{"Running", "##ing", "the", "東京", "cat's"});
    CHECK(analyzer.analyze_query(" \t ").empty());
    // A text index analyzes the same words as CONTENT.md §4-7 say.
    invidx::Analyzer text(invidx::AnalysisSettings::defaults());
    CHECK(text.analyze_query("Running the") == std::vector<std::string>{"run"});
}

TEST_CASE("jsonvector: a text pipeline's jsonl framer points a vector line to the jsonvector format") {
    CHECK(invidx::testing::framing_error("jsonl", R"({"id": "a", "vector": {"x": 1}})") ==
          "line 1: object has no \"contents\"; it has a \"vector\": pre-weighted documents are read with "
          "\"format\": \"jsonvector\" (docs/PIPELINE.md)");
}

TEST_CASE("jsonvector: in a pre-weighted build, auto's jsonl entries are vectors and text formats are errors") {
    const auto settings = pre_weighted();
    CHECK(frame_whole("jsonl", R"({"id": "v", "vector": {"x": 2}})", settings) ==
          std::vector<Record>{{"v", R"({"x":2})", false, 0, 0}});
    for (const std::string format : {"warc", "trec", "text", "html"}) {
        CAPTURE(format);
        try {
            invidx::make_framer(format, "in/page", settings);
            FAIL("no error");
        } catch (const invidx::Error& error) {
            CHECK(error.message().find("a text document (format " + format +
                                       ") in a pipeline of pre-weighted documents") == 0);
            CHECK(error.context().file == "in/page");
        }
    }
}
