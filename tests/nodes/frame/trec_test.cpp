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
    return invidx::testing::framing_error("trec", input, context);
}

}  // namespace

TEST_CASE("trec: DOC blocks named by their trimmed DOCNO, text after </DOCNO>") {
    const std::string doc1 = "<DOC>\n<DOCNO> FT911-1 </DOCNO>\n<TEXT>\nFirst &amp; text\n</TEXT>\n</DOC>";
    const std::string doc2 = "<DOC><DOCNO>LA0101-2</DOCNO><HEADLINE>Two</HEADLINE></DOC>";
    const std::string input = "\n" + doc1 + "\n\n" + doc2 + "\n";
    const std::vector<Record> expected = {
        {"FT911-1", "\n<TEXT>\nFirst &amp; text\n</TEXT>\n", true, 1, 0},
        {"LA0101-2", "<HEADLINE>Two</HEADLINE>", true, 1 + doc1.size() + 2, 1},
    };
    CHECK(frame_whole("trec", input) == expected);
    CHECK(same_records_at_every_split("trec", input));
}

TEST_CASE("trec: a DOC may hold no text, empty entries hold no DOC") {
    CHECK(frame_whole("trec", "<DOC><DOCNO>x</DOCNO></DOC>") == std::vector<Record>{{"x", "", true, 0, 0}});
    CHECK(frame_whole("trec", "").empty());
    CHECK(frame_whole("trec", " \r\n\t").empty());
}

TEST_CASE("trec: html follows the settings") {
    auto settings = invidx::AnalysisSettings::defaults();
    settings.html[invidx::InputFormat::trec] = false;
    const auto records = frame_whole("trec", "<DOC><DOCNO>x</DOCNO>t</DOC>", settings);
    REQUIRE(records.size() == 1);
    CHECK_FALSE(records[0].html);
}

TEST_CASE("trec: bad input names the DOC and its byte offset") {
    const std::string good = "<DOC><DOCNO>a</DOCNO>x</DOC>\n";
    invidx::ErrorContext context;
    CHECK(error_of(good + "<DOC><TEXT>no number</TEXT></DOC>", &context) == "DOC has no <DOCNO>");
    CHECK(context.record == 1);
    CHECK(context.byte_offset == good.size());
    CHECK(context.file == "entry");

    CHECK(error_of(good + "<DOC><DOCNO>b</DOCNO>cut off", &context) == "<DOC> without </DOC> at the end of the file");
    CHECK(context.record == 1);
    CHECK(context.byte_offset == good.size());

    CHECK(error_of("<DOC><DOCNO>a</DOCNO>x\n<DOC><DOCNO>b</DOCNO>y</DOC>", &context) ==
          "<DOC> without </DOC> (another <DOC> starts at byte 23)");
    CHECK(context.record == 0);

    CHECK(error_of("<DOC><DOCNO>a x</DOC>") == "<DOCNO> without </DOCNO>");
    CHECK(error_of("<DOC><DOCNO>  </DOCNO>x</DOC>") == "empty <DOCNO>");
    CHECK(error_of(good + "stray text", &context) == "expected <DOC>, found \"stray text\"");
    CHECK(context.record == 1);
    CHECK(context.byte_offset == good.size());
    CHECK(error_of(good + "<DO") == "<DOC> cut off by the end of the file");
    CHECK(error_of("<doc><DOCNO>a</DOCNO></doc>") == "expected <DOC>, found \"<doc><DOCNO>a</DOCNO></doc>\"");
}
