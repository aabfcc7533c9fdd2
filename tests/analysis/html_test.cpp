#include <doctest/doctest.h>

#include <string>

#include "analysis/html.hpp"

namespace {

std::string strip(std::string_view in) {
    std::string out;
    invidx::strip_html(in, out);
    return out;
}

}  // namespace

TEST_CASE("strip_html: text without markup is copied unchanged and appended") {
    CHECK(strip("plain words, 3 < 4 > 2") == "plain words, 3 < 4 > 2");
    std::string out = "pre";
    invidx::strip_html("fix", out);
    CHECK(out == "prefix");
    CHECK(strip("") == "");
}

TEST_CASE("strip_html: comments (CONTENT.md §3)") {
    CHECK(strip("a<!-- hidden words -->b") == "a b");
    CHECK(strip("a<!--<p>still comment</p>-->b") == "a b");
    // `-->` is looked for after the `<!--`, so `<!-->` does not close itself.
    CHECK(strip("a<!-->b-->c") == "a c");
    // A comment wins over the `<!` tag rule: its `>` does not end it.
    CHECK(strip("a<!-- x > y -->b") == "a b");
    CHECK(strip("a<!--b>c") == "a ");  // unterminated comment runs to the end
    CHECK(strip("a<!DOCTYPE html>b") == "a b");  // `<!` without `--` is a tag
}

TEST_CASE("strip_html: script and style elements with their content (CONTENT.md §3)") {
    CHECK(strip("a<script>var x = 1;</script>b") == "a b");
    CHECK(strip("a<SCRIPT type=\"t\">if (a<b) c</ScRiPt >d") == "a d");
    CHECK(strip("a<script\n>x</script>b") == "a b");
    CHECK(strip("a<script/>hidden</script>b") == "a b");
    CHECK(strip("a<style>p { color: red }</style>b") == "a b");
    CHECK(strip("a<STYLE media=x>p{}</STYLE>b") == "a b");
    // Not followed by whitespace, '>' or '/': an ordinary tag, content kept.
    CHECK(strip("a<scriptx>kept</scriptx>b") == "a kept b");
    CHECK(strip("a<styles>kept</styles>b") == "a kept b");
    // Unterminated: no closing tag, or a closing tag without its '>'.
    CHECK(strip("a<script>b c") == "a ");
    CHECK(strip("a<script>b</script") == "a ");
    CHECK(strip("a<style>b</style c d") == "a ");
    // A `>` inside the script does not end it; only the closing tag does.
    CHECK(strip("<script>x > y</script>z") == " z");
}

TEST_CASE("strip_html: tags (CONTENT.md §3)") {
    CHECK(strip("a<p>b</p>c") == "a b c");
    CHECK(strip("<b><i>x</i></b>") == "  x  ");
    CHECK(strip("x<?xml version=\"1.0\"?>y") == "x y");
    CHECK(strip("x<a href='&amp;'>y") == "x y");
    CHECK(strip("x<p") == "x ");  // unterminated tag runs to the end
    // Any other `<` is ordinary text.
    CHECK(strip("a<3b") == "a<3b");
    CHECK(strip("a < b") == "a < b");
    CHECK(strip("a<") == "a<");
    CHECK(strip("a<<b>c") == "a< c");
    CHECK(strip("1<=2") == "1<=2");
}

TEST_CASE("strip_html: character references (CONTENT.md §3)") {
    CHECK(strip("AT&amp;T") == "AT T");
    CHECK(strip("x&#39;s") == "x s");
    CHECK(strip("x&#x41;y") == "x y");
    const std::string name31(31, 'a');
    const std::string name32(32, 'a');
    CHECK(strip("x&" + name31 + ";y") == "x y");
    CHECK(strip("x&" + name32 + ";y") == "x&" + name32 + ";y");
    CHECK(strip("x&;y") == "x&;y");            // needs at least one byte
    CHECK(strip("x&amp y") == "x&amp y");      // no ';'
    CHECK(strip("x&am-p;y") == "x&am-p;y");    // '-' is not a reference byte
    CHECK(strip("x&amp") == "x&amp");          // cut off at the end
    CHECK(strip("&&amp;") == "& ");            // the first '&' is text
}
