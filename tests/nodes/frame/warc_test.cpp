#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "framed_records.hpp"
#include "invidx/error.hpp"
#include "nodes/frame/warc.hpp"

using invidx::testing::frame_bytewise;
using invidx::testing::frame_whole;
using invidx::testing::Record;
using invidx::testing::same_records_at_every_split;

namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

// One WARC record: version line, headers, Content-Length of `block`, an
// empty line, the block, and the two-newline record separator.
std::string warc_record(const std::string& version, const Headers& headers, const std::string& block,
                        const std::string& eol = "\r\n") {
    std::string out = version + eol;
    for (const auto& [name, value] : headers) out += name + ": " + value + eol;
    out += "Content-Length: " + std::to_string(block.size()) + eol + eol;
    return out + block + eol + eol;
}

const std::string kHttp =
    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Note: WARC/1.0\r\n\r\n";

// A body that looks like the start of another record: only Content-Length
// may delimit records.
const std::string kTrickyHtml =
    "<html>Hello\r\n\r\nWARC/1.0\r\nWARC-Type: response\r\nContent-Length: 5\r\n\r\nworld</html>";

}  // namespace

TEST_CASE("warc: Common Crawl style WARC/1.0, only response records are documents") {
    std::string input;
    input += warc_record("WARC/1.0", {{"WARC-Type", "warcinfo"}, {"WARC-Record-ID", "<urn:uuid:info>"}},
                         "software: test\r\n");
    input += warc_record("WARC/1.0", {{"WARC-Type", "request"}, {"WARC-Record-ID", "<urn:uuid:req>"}},
                         "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n");
    const uint64_t response_offset = input.size();
    input += warc_record("WARC/1.0",
                         {{"WARC-Type", "response"}, {"WARC-Record-ID", "<urn:uuid:resp-1>"},
                          {"WARC-Target-URI", "http://example.com/"}},
                         kHttp + kTrickyHtml);
    input += warc_record("WARC/1.0", {{"WARC-Type", "metadata"}, {"WARC-Record-ID", "<urn:uuid:meta>"}},
                         "fetchTimeMs: 1\r\n");
    const uint64_t second_offset = input.size();
    input += warc_record("WARC/1.0", {{"WARC-Type", "response"}, {"WARC-Record-ID", "<urn:uuid:resp-2>"}},
                         "HTTP/1.1 404 Not Found\r\n\r\n<p>gone</p>");

    const std::vector<Record> expected = {
        {"<urn:uuid:resp-1>", kTrickyHtml, true, response_offset, 2},
        {"<urn:uuid:resp-2>", "<p>gone</p>", true, second_offset, 4},
    };
    CHECK(frame_whole("warc", input) == expected);
    CHECK(same_records_at_every_split("warc", input));
}

TEST_CASE("warc: ClueWeb09 WARC/0.18 names documents by WARC-TREC-ID") {
    std::string input = warc_record("WARC/0.18", {{"WARC-Type", "warcinfo"}, {"WARC-Record-ID", "<urn:uuid:i>"}},
                                    "software: Heritrix\n");
    const uint64_t offset = input.size();
    // Header names in any case, values padded: both are normalized.
    input += warc_record("WARC/0.18",
                         {{"warc-type", "  response "}, {"WARC-Record-ID", "<urn:uuid:r>"},
                          {"warc-trec-id", "\tclueweb09-en0000-00-00000  "}},
                         "HTTP/1.1 200 OK\nContent-Type: text/html\n\n<b>clue</b> web\n");
    const auto records = frame_whole("warc", input);
    REQUIRE(records.size() == 1);
    CHECK(records[0] == Record{"clueweb09-en0000-00-00000", "<b>clue</b> web\n", true, offset, 1});
}

TEST_CASE("warc: WARC/1.1 with LF-only header lines") {
    const std::string input = warc_record(
        "WARC/1.1", {{"WARC-Type", "response"}, {"WARC-Record-ID", "<urn:uuid:lf>"}},
        "HTTP/1.1 200 OK\nServer: x\n\nbody text", "\n");
    CHECK(frame_whole("warc", input) == std::vector<Record>{{"<urn:uuid:lf>", "body text", true, 0, 0}});
    CHECK(same_records_at_every_split("warc", input));
}

TEST_CASE("warc: the HTTP header block ends at the first empty line") {
    const auto body_of = [](const std::string& block) {
        const auto records = frame_whole(
            "warc", warc_record("WARC/1.0", {{"WARC-Type", "response"}, {"WARC-Record-ID", "id"}}, block));
        REQUIRE(records.size() == 1);
        return records[0].text;
    };
    CHECK(body_of("HTTP/1.1 200 OK\r\nA: b\r\n\r\nx\r\n\r\ny") == "x\r\n\r\ny");
    CHECK(body_of("HTTP/1.1 200 OK\nA: b\n\nx") == "x");
    CHECK(body_of("\r\nno headers") == "no headers");
    CHECK(body_of("\nno headers") == "no headers");
    CHECK(body_of("HTTP/1.1 200 OK\r\n \r\nx") == "");   // a line with a space is not empty
    CHECK(body_of("HTTP/1.1 200 OK\r\nA: b\r\n") == "");  // no empty line: no text
    CHECK(body_of("") == "");
    CHECK(invidx::http_message_body("H\r\n\r\n") == "");
}

TEST_CASE("warc: blank lines between records may be missing or many") {
    const std::string a = "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: a\r\nContent-Length: 7\r\n\r\n\r\nalpha";
    const std::string b = "WARC/1.0\nWARC-Type: response\nWARC-Record-ID: b\nContent-Length: 5\n\n\nbeta";
    const std::string input = a + b + "\r\n\r\n\n\n\r\n" + a + "\n";
    const std::vector<Record> expected = {
        {"a", "alpha", true, 0, 0},
        {"b", "beta", true, a.size(), 1},
        {"a", "alpha", true, a.size() + b.size() + 8, 2},
    };
    CHECK(frame_whole("warc", input) == expected);
    CHECK(same_records_at_every_split("warc", input));
}

TEST_CASE("warc: folded header lines continue the previous value") {
    const std::string input =
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-TREC-ID: part\r\n  two\r\nContent-Length: 3\r\n\r\n\nxy\r\n\r\n";
    CHECK(frame_whole("warc", input) == std::vector<Record>{{"part two", "xy", true, 0, 0}});
}

TEST_CASE("warc: empty and whitespace-only entries have no records") {
    CHECK(frame_whole("warc", "").empty());
    CHECK(frame_whole("warc", "\r\n\n  \n").empty());
}

TEST_CASE("warc: Content-Length past the end of the entry") {
    const std::string first =
        warc_record("WARC/1.0", {{"WARC-Type", "response"}, {"WARC-Record-ID", "ok"}}, "\r\nfine");
    std::string cut = warc_record("WARC/1.0", {{"WARC-Type", "response"}, {"WARC-Record-ID", "cut"}},
                                  "\r\n" + std::string(100, 'x'));
    cut.resize(cut.size() - 50);
    const std::string input = first + cut;
    for (bool bytewise : {false, true}) {
        CAPTURE(bytewise);
        std::vector<std::string> names;
        try {
            auto framer = invidx::make_framer("warc", "data/a.warc.gz", invidx::AnalysisSettings::defaults());
            const invidx::EmitRecord emit = [&](const invidx::FramedRecord& r) { names.push_back(r.name); };
            if (bytewise) {
                for (char c : input) framer->feed(std::string_view(&c, 1), emit);
            } else {
                framer->feed(input, emit);
            }
            framer->finish(emit);
            FAIL("no error");
        } catch (const invidx::Error& e) {
            CHECK(e.message() == "WARC record's Content-Length runs past the end of the file");
            CHECK(e.context().file == "data/a.warc.gz");
            CHECK(e.context().record == 1);
            CHECK(e.context().byte_offset == first.size());
            CHECK(std::string(e.what()).find("data/a.warc.gz") != std::string::npos);
        }
        CHECK(names == std::vector<std::string>{"ok"});  // the good record came out first
    }
    // A skipped (non-response) record cut short is an error too.
    std::string request = warc_record("WARC/1.0", {{"WARC-Type", "request"}}, "GET / HTTP/1.1\r\n\r\n");
    request.resize(request.size() - 10);
    CHECK_THROWS_AS(frame_whole("warc", request), invidx::Error);
}

TEST_CASE("warc: garbage where a record should start") {
    const std::string good = warc_record("WARC/1.0", {{"WARC-Type", "response"}, {"WARC-Record-ID", "g"}}, "\n");
    for (const std::string garbage : {"garbage\r\n", "WARC\r\n", "<html>", "WAR"}) {
        CAPTURE(garbage);
        try {
            frame_whole("warc", good + "\r\n" + garbage);
            FAIL("no error");
        } catch (const invidx::Error& e) {
            CHECK(e.context().record == 1);
            CHECK(e.context().byte_offset == good.size() + 2);
        }
    }
    // A file that is not WARC at all fails on its first bytes.
    try {
        frame_whole("warc", "{\"id\": 1}\n");
        FAIL("no error");
    } catch (const invidx::Error& e) {
        CHECK(e.context().record == 0);
        CHECK(e.context().byte_offset == 0);
    }
}

TEST_CASE("warc: bad header blocks") {
    const auto error_of = [](const std::string& input) { return invidx::testing::framing_error("warc", input); };
    CHECK(error_of("WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: x\r\n\r\nbody") ==
          "WARC record has no Content-Length header");
    CHECK(error_of("WARC/1.0\r\nWARC-Type: response\r\nContent-Length: 12x\r\n\r\nbody") ==
          "WARC record has an invalid Content-Length \"12x\"");
    CHECK(error_of("WARC/1.0\r\nContent-Length: -1\r\n\r\n") == "WARC record has an invalid Content-Length \"-1\"");
    CHECK(error_of("WARC/1.0\r\nContent-Length:\r\n\r\n") == "WARC record has an invalid Content-Length \"\"");
    CHECK(error_of("WARC/1.0\r\nWARC-Type: response\r\nContent-Length: 0\r\n\r\n") ==
          "WARC response record has neither WARC-TREC-ID nor WARC-Record-ID");
    CHECK(error_of("WARC/1.0\r\nno colon here\r\n\r\n") == "malformed WARC header line \"no colon here\" (no ':')");
    CHECK(error_of("WARC/1.0\r\nWARC-Type: response\r\n") == "WARC header block is cut off by the end of the file");
    CHECK(error_of("WARC/1.0") == "WARC header block is cut off by the end of the file");
    CHECK(error_of("WARC/1.0\r\nWARC-Type: response\r\nContent-Length: 2000000000\r\nWARC-Record-ID: x\r\n\r\n") ==
          "WARC record of 2000000000 bytes exceeds the 1 GiB record limit");
}
