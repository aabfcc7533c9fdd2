#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "framed_records.hpp"

using invidx::testing::frame_cut;
using invidx::testing::Record;

TEST_CASE("text: the whole entry is one document named after the entry") {
    const std::string input = "First line.\nSecond <b>line</b>\n";
    const std::vector<Record> expected = {{"docs/a.txt", input, false, 0, 0}};
    CHECK(frame_cut("text", input, {}, invidx::AnalysisSettings::defaults(), "docs/a.txt") == expected);
    CHECK(frame_cut("text", input, {1, 5, 5, 20}, invidx::AnalysisSettings::defaults(), "docs/a.txt") == expected);
}

TEST_CASE("text: an empty entry is still a document") {
    CHECK(frame_cut("text", "", {}, invidx::AnalysisSettings::defaults(), "empty.txt") ==
          std::vector<Record>{{"empty.txt", "", false, 0, 0}});
}

TEST_CASE("text: html follows the settings") {
    auto settings = invidx::AnalysisSettings::defaults();
    settings.html[invidx::InputFormat::text] = true;
    const auto records = frame_cut("text", "x", {}, settings, "a.html");
    REQUIRE(records.size() == 1);
    CHECK(records[0].html);
}
