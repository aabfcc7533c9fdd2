#include <doctest/doctest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "nodes/frame/stream_window.hpp"
#include "framed_records.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

// A toy framer: newline-terminated lines; remembers each line with its
// entry offset, and where the views it was given lay.
struct LineFramer {
    StreamWindow window;
    std::vector<std::pair<uint64_t, std::string>> lines;
    std::vector<const char*> view_starts;

    size_t frame(std::string_view view) {
        view_starts.push_back(view.data());
        size_t pos = 0;
        for (size_t newline; (newline = view.find('\n', pos)) != std::string_view::npos; pos = newline + 1)
            lines.emplace_back(window.offset() + pos, std::string(view.substr(pos, newline - pos)));
        return pos;
    }
    void feed(std::string_view bytes) {
        window.feed(bytes, [&](std::string_view view) { return frame(view); });
    }
};

}  // namespace

TEST_CASE("StreamWindow: a feed is framed in the caller's bytes once the straddling record is done") {
    LineFramer framer;
    const std::string first = std::string(100, 'a') + "\n" + std::string(50, 'b');  // 'b' line straddles
    std::string second = std::string(30, 'b') + "\n";
    for (int i = 0; i < 20000; ++i) second += "line\n";  // 100,000 bytes: more than the first piece
    framer.feed(first);
    CHECK(framer.window.carried_bytes() == 50);
    framer.view_starts.clear();
    framer.feed(second);
    // One copied piece (64 KiB) finishes the 'b' line; the rest is framed in place.
    REQUIRE(framer.view_starts.size() == 2);
    CHECK(framer.view_starts[0] != second.data());
    CHECK(framer.view_starts[1] > second.data() + 31);
    CHECK(framer.view_starts[1] <= second.data() + 65536);
    CHECK(framer.window.carried_bytes() == 0);
    REQUIRE(framer.lines.size() == 2 + 20000);
    CHECK(framer.lines[1] == std::pair<uint64_t, std::string>{101, std::string(80, 'b')});
    CHECK(framer.lines.back().first == first.size() + second.size() - 5);
}

TEST_CASE("StreamWindow: a record longer than several pieces is completed and offsets stay right") {
    std::mt19937 random(5);
    std::string input;
    std::vector<std::pair<uint64_t, std::string>> expected;
    for (const size_t length : {10, 300000, 3, 70000, 0, 1000000, 64 * 1024, 64 * 1024 - 1, 5}) {
        std::string text(length, 'x');
        for (char& c : text) c = static_cast<char>('a' + random() % 26);
        expected.emplace_back(input.size(), text);
        input += text + "\n";
    }
    for (const size_t feed_bytes : {size_t{1000}, size_t{65536}, size_t{99999}, size_t{4} << 20}) {
        CAPTURE(feed_bytes);
        LineFramer framer;
        for (size_t at = 0; at < input.size(); at += feed_bytes) framer.feed(std::string_view(input).substr(at, feed_bytes));
        CHECK(framer.lines == expected);
        CHECK(framer.window.carried_bytes() == 0);
    }
}

namespace {

// A toy framer of records of known length: 8 decimal digits, then that many
// bytes. Like the WARC framer it tells the window the room and the bytes a
// record in progress needs.
struct LengthFramer {
    StreamWindow window;
    std::vector<std::string> records;
    std::vector<std::string_view> views;  // every view it was given
    size_t length = 0;                    // of the record in progress, once its digits are read
    bool in_record = false;

    size_t frame(std::string_view view) {
        views.push_back(view);
        size_t pos = 0;
        while (true) {
            if (!in_record) {
                if (view.size() - pos < 8) return pos;
                length = std::stoul(std::string(view.substr(pos, 8)));
                pos += 8;
                in_record = true;
            }
            if (view.size() - pos < length) {
                window.reserve_at_close(length);
                window.need_at_close(length);
                return pos;
            }
            records.emplace_back(view.substr(pos, length));
            pos += length;
            in_record = false;
        }
    }
    void feed(std::string_view bytes) {
        window.feed(bytes, [&](std::string_view view) { return frame(view); });
    }
};

}  // namespace

TEST_CASE("StreamWindow: a record of known length is carried in one buffer and completed by exactly its bytes") {
    std::string input;
    std::vector<std::string> expected;
    for (const size_t length : {size_t{1000}, size_t{5000000}, size_t{20}, size_t{3000000}, size_t{7}}) {
        std::string record(length, 'r');
        record[0] = static_cast<char>('a' + expected.size());
        char digits[9];
        std::snprintf(digits, sizeof digits, "%08zu", length);
        input += digits + record;
        expected.push_back(record);
    }
    const size_t feed_bytes = size_t{1} << 20;  // each long record spans several feeds
    LengthFramer framer;
    for (size_t at = 0; at < input.size(); at += feed_bytes) {
        framer.feed(std::string_view(input).substr(at, feed_bytes));
    }
    CHECK(framer.records == expected);
    CHECK(framer.window.carried_bytes() == 0);
    // Every view of carried bytes that completes a long record holds that
    // record and nothing past it (no piece beyond its end), and every view of
    // one record in progress starts at the same address (reserved at once,
    // never regrown).
    const std::string_view whole(input);
    const char* carried_start = nullptr;
    size_t completing = 0;
    for (const std::string_view view : framer.views) {
        if (view.data() >= whole.data() && view.data() < whole.data() + whole.size()) continue;  // the feed itself
        if (view.size() == 5000000 || view.size() == 3000000) {
            ++completing;
            if (carried_start != nullptr) CHECK(view.data() == carried_start);
        }
        if (view.size() > 1000000) carried_start = view.data();
    }
    CHECK(completing == 2);
}

TEST_CASE("framers: records larger than the window's first piece frame alike however they are split") {
    // WARC, TREC and JSONL records of 100 kB to 1 MB, split at odd places.
    std::string text;
    for (int i = 0; i < 30000; ++i) text += "word" + std::to_string(i % 97) + " ";
    const std::string http = "HTTP/1.1 200 OK\r\n\r\n" + text;
    std::string warc;
    std::string trec;
    std::string jsonl;
    for (int r = 0; r < 4; ++r) {
        const std::string body = http + std::string(static_cast<size_t>(r) * 100000, 'z');
        warc += "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <r" + std::to_string(r) +
                ">\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body + "\r\n\r\n";
        trec += "<DOC><DOCNO>t" + std::to_string(r) + "</DOCNO>" + body + "</DOC>\n";
        jsonl += "{\"id\": \"j" + std::to_string(r) + "\", \"contents\": \"" + text + std::string(r * 100000, 'z') + "\"}\n";
    }
    for (const auto& [format, input] : std::vector<std::pair<std::string, std::string>>{
             {"warc", warc}, {"trec", trec}, {"jsonl", jsonl}}) {
        CAPTURE(format);
        const auto whole = frame_whole(format, input);
        CHECK(whole.size() == 4);
        for (const size_t step : {size_t{4096}, size_t{70001}, size_t{262144}}) {
            CAPTURE(step);
            std::vector<size_t> cuts;
            for (size_t at = step; at < input.size(); at += step) cuts.push_back(at);
            CHECK(frame_cut(format, input, cuts) == whole);
        }
    }
}
