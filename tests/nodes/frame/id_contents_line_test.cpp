// The JSONL framer's reader of {"id": "...", "contents": "..."} lines (with
// other string fields or without) is checked against nlohmann's parse:
// whenever it reads a line, nlohmann reads an object with those two
// strings, and its other fields dump to the reader's metadata; whenever
// nlohmann refuses a line, so does it (the framer then gives nlohmann's
// error).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <utility>

#include "nodes/frame/id_contents_line.hpp"

using invidx::read_id_contents_line;

namespace {

struct Reading {
    std::string id, contents, metadata;
    bool operator==(const Reading&) const = default;
};

// nlohmann's reading of the line, when "id" and "contents" are strings and
// every other field's value is a string: the framer's metadata is the
// other fields' object as it dumps it.
std::optional<Reading> nlohmann_reading(const std::string& line) {
    nlohmann::json object;
    try {
        object = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
    if (!object.is_object() || !object.contains("id") || !object.contains("contents")) return std::nullopt;
    for (const auto& [key, value] : object.items())
        if (!value.is_string()) return std::nullopt;
    Reading reading{object["id"].get<std::string>(), object["contents"].get<std::string>(), ""};
    object.erase("id");
    object.erase("contents");
    if (!object.empty()) reading.metadata = object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return reading;
}

std::optional<Reading> fast_reading(const std::string& line) {
    Reading reading;
    if (!read_id_contents_line(line, reading.id, reading.contents, reading.metadata)) return std::nullopt;
    return reading;
}

// Pieces of string bodies: plain text, every escape, UTF-8 of each length,
// surrogate pairs, and what JSON refuses (lone surrogates, bad escapes, raw
// control characters, bytes that are not UTF-8).
const char* const kPieces[] = {
    "plain words", " ", "<p>", "caf\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\\\"", "\\\\", "\\/", "\\b",
    "\\f", "\\n", "\\r", "\\t", "\\u00e9", "\\u00E9", "\\u0000", "\\u001f", "\\u20ac", "\\ud83d\\ude00", "\\uD83D\\uDE00",
    "\\ud83d", "\\ude00", "\\ud83dx", "\\ud83d\\u0041", "\\u12", "\\uzzzz", "\\x", "\\", "\t", "\x01", "\x7F",
    "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xFF", "\xC3", "'", "}", "{", ":", ",", "\"",
};

std::string random_body(std::mt19937& random) {
    std::string body;
    const int pieces = static_cast<int>(random() % 6);
    for (int p = 0; p < pieces; ++p) body += kPieces[random() % std::size(kPieces)];
    return body;
}

std::string random_space(std::mt19937& random) {
    const char* const spaces[] = {"", "", " ", "  ", "\t", "\r", " \r\t"};
    return spaces[random() % std::size(spaces)];
}

// A line of one of many shapes: the common one most often, and every way
// of leaving it (other keys, a key twice, numbers, escaped keys, garbage).
std::string random_line(std::mt19937& random) {
    const auto s = [&] { return random_space(random); };
    std::string id = "\"id\"", contents = "\"contents\"";
    switch (random() % 12) {
        case 0: id = "\"i\\u0064\""; break;
        case 1: contents = "\"title\""; break;
        default: break;
    }
    const std::string id_value = random() % 10 == 0 ? "42" : "\"" + random_body(random) + "\"";
    const std::string contents_value = random() % 15 == 0 ? "null" : "\"" + random_body(random) + "\"";
    std::string members[2] = {s() + id + s() + ":" + s() + id_value + s(),
                              s() + contents + s() + ":" + s() + contents_value + s()};
    if (random() % 2) std::swap(members[0], members[1]);
    std::string line = s() + "{" + members[0] + "," + members[1];
    switch (random() % 8) {
        case 0: line += "," + s() + "\"url\":" + s() + "\"" + random_body(random) + "\""; break;
        case 1: line += ", \"title\": \"" + random_body(random) + "\", \"b\u00e9\": \"" + random_body(random) + "\""; break;
        case 2: line += ", \"" + random_body(random) + "\": \"" + random_body(random) + "\""; break;  // any key
        case 3: line += ", \"n\": 3"; break;
        case 4: line += ", " + members[0]; break;  // a key twice
        case 5: line += ", \"t\": \"x\", \"t\": \"y\""; break;
        default: break;
    }
    line += "}" + s();
    switch (random() % 20) {
        case 0: line += "x"; break;
        case 1: line.pop_back(); break;
        case 2: line = "[" + line + "]"; break;
        case 3: line = "\xEF\xBB\xBF" + line; break;  // a byte order mark
        default: break;
    }
    return line;
}

}  // namespace

TEST_CASE("id/contents lines: the common shapes are read, as nlohmann reads them") {
    const std::string lines[] = {
        R"({"id": "doc-1", "contents": "Some text."})",
        R"({"contents":"caf\u00e9 \"q\" \\ \/ \n","id":"x"})",
        "  {\t\"id\" : \"\xE2\x82\xAC\" ,\r\"contents\" : \"\xF0\x9F\x98\x80 \\ud83d\\ude00\" }\r",
        R"({"id": "", "contents": ""})",
        R"({"id": "nul", "contents": "a\u0000b"})",
        R"({"url": "http://x/y", "id": "d", "title": "T\u0001\u001b\t\"q\"", "contents": "c", "b\u00e9": "\u007f"})",
    };
    for (const std::string& line : lines) {
        CAPTURE(line);
        const auto fast = fast_reading(line);
        REQUIRE(fast.has_value());
        CHECK(fast == nlohmann_reading(line));
    }
    CHECK(fast_reading(R"({"id": "nul", "contents": "a\u0000b"})")->contents == std::string("a\0b", 3));
    CHECK(fast_reading(R"({"id": "d", "contents": "c", "url": "u", "title": "t"})")->metadata ==
          R"({"title":"t","url":"u"})");
}

TEST_CASE("id/contents lines: everything else is left to nlohmann") {
    const std::string lines[] = {
        R"({"id": 7, "contents": "number id"})",
        R"({"id": "a", "contents": "b", "year": 1999})",
        R"({"id": "a", "contents": "b", "tags": ["x"]})",
        R"({"id": "a", "id": "b", "contents": "c"})",
        R"({"id": "a", "contents": "b", "t": "x", "t": "y"})",
        R"({"id": "a"})",
        R"({"id": "a", "contents": "b"} x)",
        R"({"id": "a", "contents": "\ud83d"})",
        R"({"id": "a", "contents": "\x"})",
        "{\"id\": \"a\", \"contents\": \"raw\ttab\"}",
        "{\"id\": \"a\", \"contents\": \"\xC0\xAF\"}",
        "\xEF\xBB\xBF{\"id\": \"a\", \"contents\": \"b\"}",
        R"([{"id": "a", "contents": "b"}])",
        R"({"id": "a", "contents": "b")",
    };
    for (const std::string& line : lines) {
        CAPTURE(line);
        CHECK_FALSE(fast_reading(line).has_value());
    }
}

TEST_CASE("id/contents lines: on 50,000 random lines, whatever is read is nlohmann's reading") {
    std::mt19937 random(20261128);
    size_t read = 0, read_with_metadata = 0, refused_by_both = 0;
    for (int n = 0; n < 50000; ++n) {
        const std::string line = random_line(random);
        const auto fast = fast_reading(line);
        const auto reference = nlohmann_reading(line);
        if (fast) {
            ++read;
            if (!fast->metadata.empty()) ++read_with_metadata;
            CAPTURE(line);
            REQUIRE(reference.has_value());
            CHECK(*fast == *reference);  // metadata included
        } else if (!reference) {
            ++refused_by_both;
        }
    }
    // Both kinds of line occur often enough for the comparison to mean something.
    CHECK(read > 1500);
    CHECK(read_with_metadata > 300);
    CHECK(refused_by_both > 5000);
}
