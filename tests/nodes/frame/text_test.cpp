#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "framed_records.hpp"
#include "tests/nodes/decompress/archive_writer.hpp"

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

TEST_CASE("text: an entry whose start is binary data is an error naming the entry and the byte") {
    // A NUL byte: a zeroed start, a tar header, compressed data.
    std::string tar_header = "docs/a.txt";
    tar_header.resize(512, '\0');
    try {
        frame_cut("text", tar_header + "the member's text", {3, 100}, invidx::AnalysisSettings::defaults(), "a.tar");
        FAIL("binary data framed as text");
    } catch (const invidx::Error& error) {
        CHECK(error.context().file == "a.tar");
        CHECK(error.context().byte_offset == 10);
        CHECK(error.message().find("binary data, not text") != std::string::npos);
    }
    // Control characters without a NUL, as in a short piece of compressed data.
    std::string controls;
    for (int i = 0; i < 64; ++i) controls += static_cast<char>(i % 2 == 0 ? 'a' + i % 26 : 1 + i % 8);
    CHECK_THROWS_AS(frame_cut("text", controls, {}), invidx::Error);
    // Found in the first 64 KiB, however it is cut.
    const std::string late = std::string(70000, 'x').replace(65000, 1, 1, '\0');
    CHECK_THROWS_AS(frame_cut("text", late, {1000, 40000}), invidx::Error);
}

TEST_CASE("text: text in any ASCII-based encoding is text") {
    const std::string latin1 = "caf\xe9 na\xefve \xfc" "ber\r\n\tline\f\x1b[0m\n";
    const std::string utf8 = "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac\n";
    for (const std::string& text : {latin1, utf8, std::string("one control \x01 in a longer line of ordinary text")}) {
        CHECK(frame_cut("text", text, {}).size() == 1);
    }
    // A NUL past the first 64 KiB is not looked for.
    const std::string late = std::string(70000, 'x').replace(69000, 1, 1, '\0');
    CHECK(frame_cut("text", late, {}).size() == 1);
}

TEST_CASE("text: a .txt.gz with its first bytes zeroed, which no decoder recognizes, is an error") {
    std::string gz = invidx::testing::compress(invidx::testing::sample_text(20000, 3), ARCHIVE_FILTER_GZIP);
    std::fill_n(gz.begin(), 16, '\0');
    CHECK_THROWS_WITH_AS(frame_cut("text", gz, {}, invidx::AnalysisSettings::defaults(), "a.txt.gz"),
                         doctest::Contains("binary data, not text"), invidx::Error);
    // Past the zeros too: compressed data is never taken for text.
    CHECK_THROWS_AS(frame_cut("text", std::string_view(gz).substr(16), {}), invidx::Error);
}
