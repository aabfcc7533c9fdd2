#include "invidx/input_format.hpp"

#include <doctest/doctest.h>

#include <iterator>
#include <set>
#include <string>

#include "invidx/error.hpp"

namespace invidx {
namespace {

std::string name_of_file(std::string_view path) { return std::string(input_format_name(input_format_of_file(path))); }

bool ends_with(std::string_view name, std::string_view suffix) {
    return name.size() >= suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
}

}  // namespace

TEST_CASE("input format table: every name round-trips, and the known names list them all") {
    REQUIRE(kInputFormatCount == 6);
    std::string listed;
    for (const auto& row : kInputFormats) {
        CAPTURE(row.name);
        CHECK(&input_format_row(row.format) == &row);
        CHECK(input_format_name(row.format) == row.name);
        REQUIRE(find_input_format(row.name).has_value());
        CHECK(*find_input_format(row.name) == row.format);
        CHECK(input_format_setting(row.name, "/input/0/format") == row.format);
        listed += (listed.empty() ? "" : ", ") + std::string(row.name);
    }
    CHECK(input_format_names() == listed);
    CHECK(input_format_names() == "warc, trec, jsonl, text, html, jsonvector");  // CONTENT.md §1-2's formats
    CHECK_FALSE(find_input_format("WARC").has_value());        // names are exact
    CHECK_FALSE(find_input_format(kAutoInputFormat).has_value());
    CHECK(input_format_setting(kAutoInputFormat, "/input") == std::nullopt);
}

TEST_CASE("input format table: rows are unique, and no suffix of one format ends another's") {
    std::set<std::string_view> names;
    std::set<InputFormat> formats;
    for (const auto& row : kInputFormats) {
        CHECK(names.insert(row.name).second);
        CHECK(formats.insert(row.format).second);
        CHECK(row.name != kAutoInputFormat);
        for (std::string_view suffix : row.suffixes) {
            CHECK(suffix.size() > 1);
            CHECK(suffix.front() == '.');
            for (char c : suffix) CHECK_FALSE((c >= 'A' && c <= 'Z'));  // matched against the lowercased name
            for (std::string_view container : kContainerSuffixes) CHECK(suffix != container);
        }
    }
    // Detection tries the rows in order; where no suffix ends another
    // format's, that order cannot change the answer.
    for (const auto& a : kInputFormats) {
        for (const auto& b : kInputFormats) {
            if (a.format == b.format) continue;
            for (std::string_view x : a.suffixes) {
                for (std::string_view y : b.suffixes) {
                    CAPTURE(x);
                    CAPTURE(y);
                    CHECK_FALSE(ends_with(x, y));
                }
            }
        }
    }
    CHECK(input_format_row(kFallbackInputFormat).suffixes.empty());
}

TEST_CASE("input format table: HTML rules by default on warc, trec and html only") {
    const InputFormatFlags html = default_html_rules();
    CHECK(html[InputFormat::warc]);
    CHECK(html[InputFormat::trec]);
    CHECK_FALSE(html[InputFormat::jsonl]);
    CHECK_FALSE(html[InputFormat::text]);
    CHECK(html[InputFormat::html]);
    for (const auto& row : kInputFormats) CHECK(html[row.format] == row.html_rules_by_default);
}

TEST_CASE("input_format_of_file: each suffix, under every compression suffix (CONTENT.md §1-2)") {
    for (const auto& row : kInputFormats) {
        for (std::string_view suffix : row.suffixes) {
            const std::string name = "/data/part-00" + std::string(suffix);
            CAPTURE(name);
            CHECK(input_format_of_file(name) == row.format);
            for (std::string_view compression : kCompressionSuffixes) {
                CAPTURE(compression);
                CHECK(input_format_of_file(name + std::string(compression)) == row.format);
                CHECK(input_format_of_file(name + std::string(compression) + ".gz") == row.format);
            }
            // A tar or zip is never a format of its own: its name says text,
            // and its entries are detected by their own names when framed.
            CHECK(input_format_of_file(name + ".tar.gz") == kFallbackInputFormat);
            CHECK(input_format_of_file(name + ".zip") == kFallbackInputFormat);
        }
    }
    const std::set<std::string_view> compression(std::begin(kCompressionSuffixes), std::end(kCompressionSuffixes));
    CHECK(compression == std::set<std::string_view>{".gz", ".bz2", ".xz", ".zst", ".lz4"});
    CHECK(name_of_file("a.warc") == "warc");
    CHECK(name_of_file("/data/cc/CC-MAIN-1.warc.gz") == "warc");
    CHECK(name_of_file("0000.WARC.GZ") == "warc");
    CHECK(name_of_file("x.warc.tar.xz") == "text");
    CHECK(name_of_file("robust04.trec.bz2") == "trec");
    CHECK(name_of_file("la.sgml.lz4") == "trec");
    CHECK(name_of_file("la.sgm") == "text");
    CHECK(name_of_file("part-0.ndjson.zstd") == "text");
    CHECK(name_of_file("part-0.JSON.ZST") == "jsonl");
    CHECK(name_of_file("index.html") == "html");
    CHECK(name_of_file("index.HTM") == "html");
    CHECK(name_of_file("a/b/page.xhtml.bz2") == "html");
    CHECK(name_of_file("notes.txt") == "text");
    CHECK(name_of_file("page.xml") == "text");       // most XML is not TREC's <DOC> layout
    CHECK(name_of_file("books.tgz") == "text");
    CHECK(name_of_file("archive.zip") == "text");
    CHECK(name_of_file("README") == "text");
    CHECK(name_of_file("dir.warc/file.txt") == "text");  // only the file name counts
    CHECK(name_of_file(".warc") == "text");              // a suffix alone is no name
    CHECK(name_of_file(".gz") == "text");
    CHECK(name_of_file("") == "text");
}

TEST_CASE("input_format_setting: an unknown name is a ConfigError at the pointer that lists the known ones") {
    try {
        input_format_setting("pdf", "/input/2/format");
        FAIL("no error");
    } catch (const ConfigError& error) {
        CHECK(error.json_pointer() == "/input/2/format");
        CHECK(std::string(error.what()).find("unknown format 'pdf'; known: auto, warc, trec, jsonl, text, html") !=
              std::string::npos);
    }
    CHECK_THROWS_AS(input_format_setting("Warc", "/input"), ConfigError);
    CHECK_THROWS_AS(input_format_setting("", "/input"), ConfigError);
}

}  // namespace invidx
