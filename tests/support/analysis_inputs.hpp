// Documents that put the analyzer's rules to the test, shared by the tests
// that hold one analysis path against another (vector scan, GPU passes):
// the bundled sample, pieces of every CONTENT.md §3 construct and CONTENT.md §4 UTF-8
// case, and a comparable form of DocumentTerms.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "analysis/analyzer.hpp"
#include "nodes/decompress/decompress_file.hpp"
#include "nodes/frame/framer.hpp"
#include "nodes/read/input_files.hpp"

namespace invidx::testing {

struct AnalysisDocument {
    std::string text;
    bool html;
};

// The records of sample/debian-docs.warc.gz as the framer gives them.
inline std::vector<AnalysisDocument> sample_documents() {
    const std::string sample = std::string(INVIDX_SOURCE_DIR) + "/sample/debian-docs.warc.gz";
    const auto settings = AnalysisSettings::defaults();
    const auto files = expand_inputs({InputSpec{sample, "auto"}}, [](std::string_view path) { return detect_format(path); });
    std::vector<AnalysisDocument> docs;
    for (const auto& file : files) {
        std::unique_ptr<Framer> framer;
        const EmitRecord on_record = [&](const FramedRecord& record) {
            docs.push_back(AnalysisDocument{std::string(record.text), record.html});
        };
        decompress_file(file, kDefaultTextBlockBytes, [&](TextBlock&& block) {
            if (block.entry_begin) framer = make_framer(file.format, block.entry_name, settings);
            framer->feed(block.bytes, on_record);
            if (block.entry_end) framer->finish(on_record);
            return true;
        });
    }
    return docs;
}

// Terms, tf, collections and positions of a document, as one comparable value.
inline std::vector<std::string> terms_lines(const DocumentTerms& terms) {
    std::vector<std::string> out;
    for (const auto& term : terms.terms) {
        std::string line = std::string(terms.term(term)) + " tf=" + std::to_string(term.tf) +
                           " c=" + std::to_string(term.collection) + " @";
        for (uint32_t i = 0; i < term.tf && !terms.positions.empty(); ++i) {
            line += " " + std::to_string(terms.positions[term.first_position_index + i]);
        }
        out.push_back(line);
    }
    out.push_back("length=" + std::to_string(terms.length) + " tokens=" + std::to_string(terms.tokens));
    return out;
}

// Pieces of generated input: every CONTENT.md §3 construct, cut and whole, and
// every UTF-8 case of CONTENT.md §4 that a scan may treat apart.
inline std::vector<std::string> html_pieces() {
    std::vector<std::string> p = {
        "word", "Word", "WORD", "x", "42", "a1B2", " ", "  ", "\n", "\t", ".", ",", "-", "'", "/", ";", "#",
        std::string(1, '\0'), "\x7f", ">", "<", "&", "<<", "&&", "< b", "<1", "<=",
        "<!--", "-->", "<!-- c -->", "<!-->", "<!- x", "--", "<!DOCTYPE html>", "<?xml?>", "</", "</p>",
        "<p>", "<a href=\"x\">", "<B>", "<br/>", "<p", "<script>", "</script>", "<SCRIPT type=x>", "</ScRiPt >",
        "<script", "<scripts>", "<script/>", "<style>", "</style>", "<Style\t>", "</STYLE", "<style", "<styles>",
        "&amp;", "&#123;", "&#x1F600;", "&AMP;", "&;", "&a", "&amp", "& amp;", "&a-b;",
        // Non-ASCII: token characters and the boundaries of the excluded ranges.
        "é", "É", "ß", "東京", "данные", "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF",
        "\xC2\x80", "\xC2\xBF", "\xC3\x80", "\xC3\x96", "\xC3\x97", "\xC3\x98", "\xC3\xB6", "\xC3\xB7", "\xC3\xB8",
        "\xE1\xBF\xBF", "\xE2\x80\x80", "\xE2\x81\xAF", "\xE2\x81\xB0", "\xE2\xBF\xBF", "\xE3\x80\x80",
        "\xE3\x80\xBF", "\xE3\x81\x80", "\xEF\xBF\xBF", "\xF0\x90\x80\x80",
        // Ill-formed: overlong, surrogates, beyond U+10FFFF, stray and truncated.
        "\xC0\x80", "\xC1\xBF", "\xE0\x80\x80", "\xE0\x9F\xBF", "\xED\xA0\x80", "\xED\xBF\xBF", "\xF0\x80\x80\x80",
        "\xF0\x8F\xBF\xBF", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xFF", "\xFE", "\x80", "\xBF", "\xC3",
        "\xE2\x80", "\xF0\x9F\x98", "\xE3", "\xF0",
    };
    // Tags that begin with "<s": only "<scr" and "<sty" may open a raw-text
    // element; the others are plain tags (the vector scan tells them apart
    // from their first four bytes).
    for (const char* tag : {"<span>", "<strong class=x>", "<SMALL>", "<s>", "<s", "<sc", "<st", "<scr", "<sty",
                            "<scroll>", "<styx>", "<stx>", "<sub", "<sTyLe>", "<SCRipt\n>", "<scRIPT", "<STy"}) {
        p.push_back(tag);
    }
    // Plain tags longer than a vector block, whose '>' is one or more blocks on.
    for (size_t length : {40u, 63u, 64u, 65u, 127u, 200u}) {
        p.push_back("<a title=\"" + std::string(length, 'v') + "\">");
        p.push_back("</" + std::string(length, 'W') + ">");
    }
    for (size_t length = 1; length <= 33; ++length) {  // references of 1..33 bytes
        p.push_back("&" + std::string(length, "aZ0#"[length % 4]) + ";");
    }
    return p;
}

// Tokens of 254, 255 and 256 bytes (ASCII, and ending in a 2-byte character).
inline std::vector<std::string> long_tokens() {
    std::vector<std::string> t;
    for (size_t length : {254u, 255u, 256u}) {
        t.push_back(std::string(length, 'L'));
        t.push_back(std::string(length - 2, 'm') + "é");
        t.push_back(std::string(length - 1, 'n') + "\xC3");  // cut character: ill-formed, a separator
    }
    return t;
}

inline std::string random_fragment(std::mt19937& random, const std::vector<std::string>& p, size_t count) {
    std::string out;
    for (size_t i = 0; i < count; ++i) out += p[random() % p.size()];
    return out;
}

// Broken HTML with words the stemmer and the stop word list act on: pieces
// of every construct (unclosed comments and tags, nested script and style,
// references cut at the end, NUL bytes, ill-formed UTF-8) among stemmable
// words, with tokens of 254-256 bytes now and then.
inline std::vector<AnalysisDocument> broken_html_documents(std::mt19937& random, size_t count) {
    std::vector<std::string> p = html_pieces();
    for (const char* word : {"the", "The", "and", "of", "Running", "runs", "ponies", "caresses", "relational",
                             "généralement", "yelling", "Hopping", "agreed", " ", " ", "\n"}) {
        p.push_back(word);
    }
    const std::vector<std::string> longs = long_tokens();
    const std::vector<std::string> nested = {"<script><style>x</style>y</script>", "<style><script>x</script>y</style>",
                                             "<script><!-- x </script> -->", "<!-- <script> -->z</script>"};
    std::vector<AnalysisDocument> docs;
    for (size_t d = 0; d < count; ++d) {
        std::string text = random_fragment(random, p, 1 + random() % 200);
        if (d % 3 == 0) text += longs[random() % longs.size()] + random_fragment(random, p, 3);
        if (d % 5 == 0) text += nested[random() % nested.size()] + random_fragment(random, p, 3);
        if (d % 7 == 0) text += "&am";  // a reference cut at the end
        docs.push_back(AnalysisDocument{std::move(text), d % 4 != 3});
    }
    return docs;
}

}  // namespace invidx::testing
