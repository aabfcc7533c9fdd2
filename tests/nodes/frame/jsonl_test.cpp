#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "framed_records.hpp"
#include "invidx/error.hpp"

using invidx::testing::frame_whole;
using invidx::testing::Record;
using invidx::testing::same_records_at_every_split;

namespace {

std::string error_of(const std::string& input, invidx::ErrorContext* context = nullptr) {
    return invidx::testing::framing_error("jsonl", input, context);
}

}  // namespace

TEST_CASE("jsonl: one object per line, id and contents, blank lines skipped but counted") {
    const std::string line0 = R"({"id": "doc-a", "contents": "Alpha <b>text</b>", "extra": [1, 2]})";
    const std::string line3 = R"({"contents": "caf\u00e9 \"q\"", "id": 42})";
    const std::string line4 = "{\"id\": -7, \"contents\": \"\"}\r";
    const std::string line5 = R"({"id":1.5,"contents":"last line without newline"})";
    const std::string input = line0 + "\n\n   \t\n" + line3 + "\n" + line4 + "\n" + line5;
    const uint64_t offset3 = line0.size() + 1 + 1 + 5;
    const std::vector<Record> expected = {
        {"doc-a", "Alpha <b>text</b>", false, 0, 0},
        {"42", "caf\xC3\xA9 \"q\"", false, offset3, 3},
        {"-7", "", false, offset3 + line3.size() + 1, 4},
        {"1.5", "last line without newline", false, offset3 + line3.size() + 1 + line4.size() + 1, 5},
    };
    CHECK(frame_whole("jsonl", input) == expected);
    CHECK(same_records_at_every_split("jsonl", input));
    CHECK(frame_whole("jsonl", input + "\n") == expected);
}

TEST_CASE("jsonl: empty entry, html from the settings") {
    CHECK(frame_whole("jsonl", "").empty());
    CHECK(frame_whole("jsonl", "\n\n").empty());
    auto settings = invidx::AnalysisSettings::defaults();
    settings.html[invidx::InputFormat::jsonl] = true;
    const auto records = frame_whole("jsonl", R"({"id":"x","contents":"y"})", settings);
    REQUIRE(records.size() == 1);
    CHECK(records[0].html);
}

TEST_CASE("jsonl: a bad line is an error naming the file and the line") {
    const std::string good = R"({"id":"a","contents":"b"})";
    invidx::ErrorContext context;
    const std::string message = error_of(good + "\n\n{\"id\": \"x\", \"contents\": \"unterminated}\n" + good, &context);
    CHECK(message.rfind("line 3: not valid JSON", 0) == 0);
    CHECK(context.record == 2);
    CHECK(context.byte_offset == good.size() + 2);
    CHECK(context.file == "entry");

    CHECK(error_of("[1, 2]", &context) == "line 1: expected a JSON object, found a array");
    CHECK(context.record == 0);
    CHECK(error_of(good + "\n" + R"({"contents": "x"})") == "line 2: object has no \"id\"");
    CHECK(error_of(R"({"id": "x"})") == "line 1: object has no \"contents\"");
    CHECK(error_of(R"({"id": true, "contents": "x"})") == "line 1: \"id\" must be a string or a number, not a boolean");
    CHECK(error_of(R"({"id": null, "contents": "x"})") == "line 1: \"id\" must be a string or a number, not a null");
    CHECK(error_of(R"({"id": "x", "contents": 5})") == "line 1: \"contents\" must be a string, not a number");
    CHECK(error_of("{\"id\": \"x\", \"contents\": \"y\"} trailing").rfind("line 1: not valid JSON", 0) == 0);
    CHECK(error_of("\"just a string\"") == "line 1: expected a JSON object, found a string");
}
