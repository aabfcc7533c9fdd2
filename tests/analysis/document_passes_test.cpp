// The shared host/device analysis (html_rules.hpp, for_each_token.hpp,
// document_passes.hpp), compiled for the host: the construct rules at 32-bit
// indices against html_construct_end, for_each_token with HTML rules against
// strip_html + tokenize, and the two passes over a batch
// (analyze_batch_on_host, the code GPU kernels run) against
// Analyzer::analyze, on the sample, generated pages and broken HTML.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "analysis/document_passes.hpp"
#include "analysis/html.hpp"
#include "analysis/html_rules.hpp"
#include "analysis/for_each_token.hpp"
#include "analysis/tokenize.hpp"
#include "devices/gpu_analysis.hpp"
#include "invidx/error.hpp"
#include "support/analysis_inputs.hpp"
#include "support/batch_analysis.hpp"
#include "support/collections.hpp"
#include "support/possessives.hpp"

namespace {

using namespace invidx;

const unsigned char* bytes_of(const std::string& text) { return reinterpret_cast<const unsigned char*>(text.data()); }

std::vector<std::string> reference_tokens(const std::string& text, bool html) {
    std::string stripped;
    std::string_view input = text;
    if (html) {
        strip_html(text, stripped);
        input = stripped;
    }
    std::vector<std::string> tokens;
    tokenize(input, [&](std::string_view token) { tokens.emplace_back(token); });
    return tokens;
}

// for_each_token's tokens at 32-bit indices; each one's start must hold its
// bytes (lowercased) in the text.
std::vector<std::string> scanned_tokens(const std::string& text, bool html, size_t& misplaced) {
    std::vector<std::string> tokens;
    for_each_token(bytes_of(text), static_cast<uint32_t>(text.size()), html,
                   [&](const unsigned char* token, uint32_t length, uint32_t start) {
                       tokens.emplace_back(reinterpret_cast<const char*>(token), length);
                       for (uint32_t i = 0; i < length; ++i) {
                           if (html_rules::ascii_lower(bytes_of(text)[start + i]) != token[i]) {
                               ++misplaced;
                               break;
                           }
                       }
                   });
    return tokens;
}

std::vector<std::string> fragments(size_t count, unsigned seed) {
    std::mt19937 random(seed);
    const auto pieces = testing::html_pieces();
    const auto longs = testing::long_tokens();
    std::vector<std::string> out;
    for (size_t f = 0; f < count; ++f) {
        std::string fragment = testing::random_fragment(random, pieces, 1 + random() % 24);
        if (f % 16 == 0) fragment += longs[random() % longs.size()] + testing::random_fragment(random, pieces, 4);
        out.push_back(fragment);
    }
    return out;
}

}  // namespace

TEST_CASE("html_rules: 32-bit construct ends equal html_construct_end at every byte") {
    size_t differing = 0;
    size_t constructs = 0;
    for (const std::string& text : fragments(20000, 3)) {
        for (size_t at = 0; at < text.size(); ++at) {
            const uint32_t end = html_rules::construct_end(bytes_of(text), static_cast<uint32_t>(text.size()),
                                                           static_cast<uint32_t>(at));
            const size_t expected = (text[at] == '<' || text[at] == '&') ? html_construct_end(text, at) : 0;
            constructs += expected != 0;
            if (end != expected && ++differing <= 3) FAIL_CHECK("at " << at << " of " << text);
        }
    }
    CHECK(differing == 0);
    CHECK(constructs > 10000);  // the fragments hold constructs of every kind
}

TEST_CASE("html_rules: hand-made construct ends") {
    const auto end = [](const std::string& text, uint32_t at) {
        return html_rules::construct_end(bytes_of(text), static_cast<uint32_t>(text.size()), at);
    };
    CHECK(end("a<!-- x -->b", 1) == 11);
    CHECK(end("a<!-->b-->c", 1) == 10);
    CHECK(end("<!-- x", 0) == 6);
    CHECK(end("<!--", 0) == 4);
    CHECK(end("<!-", 0) == 3);  // `<!` tag, unterminated
    CHECK(end("<ScRiPt>x</SCRIPT >y", 0) == 19);
    CHECK(end("<script", 0) == 7);  // nothing after the name: a tag, unterminated
    CHECK(end("<styles>a</styles>", 0) == 8);
    CHECK(end("a<3", 1) == 0);
    CHECK(end("a<", 1) == 0);
    CHECK(end("&amp;", 0) == 5);
    CHECK(end("&" + std::string(31, 'a') + ";", 0) == 33);
    CHECK(end("&" + std::string(32, 'a') + ";", 0) == 0);
    CHECK(end("&am", 0) == 0);
    CHECK(end("x", 0) == 0);
}

TEST_CASE("for_each_token: with HTML rules, the tokens of strip_html + tokenize, at their places") {
    size_t differing = 0;
    size_t misplaced = 0;
    size_t tokens = 0;
    for (const std::string& text : fragments(30000, 11)) {
        for (const bool html : {true, false}) {
            const auto expected = reference_tokens(text, html);
            tokens += expected.size();
            if (scanned_tokens(text, html, misplaced) != expected && ++differing <= 3) {
                FAIL_CHECK("html=" << html << ": " << text);
            }
        }
    }
    CHECK(differing == 0);
    CHECK(misplaced == 0);
    CHECK(tokens > 100000);
}

TEST_CASE("document passes: bounds of the regions") {
    using document_passes::table_slots;
    using document_passes::token_bound;
    CHECK(token_bound(0) == 0);
    CHECK(token_bound(1) == 1);
    CHECK(token_bound(2) == 1);
    CHECK(token_bound(3) == 2);
    CHECK(token_bound(uint64_t{0xFFFFFFFF}) == uint64_t{0x80000000});
    CHECK(table_slots(0) == 0);
    CHECK(table_slots(1) == 2);
    CHECK(table_slots(2) == 4);
    CHECK(table_slots(3) == 8);
    CHECK(table_slots(uint64_t{1} << 31) == uint64_t{1} << 32);
    // The densest text reaches the bound: one-letter tokens, one separator apart.
    size_t misplaced = 0;
    for (const std::string text : {"a", "a b", "a b c", "ab", "a b "}) {
        CAPTURE(text);
        CHECK(scanned_tokens(text, false, misplaced).size() <= token_bound(text.size()));
    }
    CHECK(scanned_tokens("a b c", false, misplaced).size() == token_bound(5));
}

TEST_CASE("batch on the host: the sample collection gives Analyzer::analyze's terms") {
    const auto docs = testing::sample_documents();
    REQUIRE(docs.size() > 50);
    testing::check_batch_against_analyzer(docs, analyze_batch_on_host);
}

TEST_CASE("batch on the host: generated pages give Analyzer::analyze's terms") {
    std::mt19937 random(23);
    const auto words = testing::test_vocabulary(random, 300);
    std::vector<testing::AnalysisDocument> docs;
    for (int d = 0; d < 200; ++d) {
        docs.push_back({testing::random_html(random, words, 1 + random() % 600), d % 5 != 0});
    }
    docs.push_back({"", true});
    docs.push_back({"", false});
    testing::check_batch_against_analyzer(docs, analyze_batch_on_host);
    testing::check_batch_against_analyzer(docs, analyze_batch_on_host, 7);  // documents with gaps between them
}

TEST_CASE("batch on the host: broken HTML gives Analyzer::analyze's terms") {
    std::mt19937 random(29);
    auto docs = testing::broken_html_documents(random, 2000);
    docs.push_back({std::string(3, '\0') + "a" + std::string(1, '\0') + "b<!--", true});
    docs.push_back({"x<script>y", true});
    docs.push_back({"x &#x41", true});
    docs.push_back({std::string(255, 'k') + " " + std::string(256, 'k') + " " + std::string(254, 'k'), true});
    testing::check_batch_against_analyzer(docs, analyze_batch_on_host);
}

TEST_CASE("batch on the host: possessives and a lone s give Analyzer::analyze's terms, none empty") {
    std::vector<testing::AnalysisDocument> docs;
    for (const std::string& text : testing::possessive_texts()) {
        docs.push_back({text, false});
        docs.push_back({"<p>" + text + "</p>", true});
    }
    docs.push_back({testing::text_without_lone_s(), false});
    testing::check_batch_against_analyzer(docs, analyze_batch_on_host);
    testing::check_batch_against_analyzer(docs, analyze_batch_on_host, 3);

    // Porter alone would make the "s" of "it's" an empty term (CONTENT.md §7).
    std::string storage;
    const GpuAnalysisResult result =
        analyze_batch_on_host(testing::batch_input(docs, AnalysisSettings::defaults(), storage));
    size_t with_s = 0;
    for (const auto& term : result.terms) {
        const std::string_view text = std::string_view(result.bytes).substr(term.term_offset, term.term_length);
        CHECK(!text.empty());
        if (text == "s") ++with_s;
    }
    CHECK(with_s == 2 * testing::possessive_texts().size());
}

TEST_CASE("batch on the host: malformed batches and stemmers are errors") {
    const std::string text = "abc def";
    GpuAnalysisInput input;
    input.text = text;
    input.offsets = {0, 4};
    input.lengths = {3, 3};
    input.html = {0, 0};
    const GpuAnalysisResult result = analyze_batch_on_host(input);
    REQUIRE(result.documents() == 2);
    CHECK(result.bytes == "abcdef");
    CHECK(result.term_begin == std::vector<uint64_t>{0, 1, 2});

    // Stop words take positions; the same stem twice is one term.
    const std::string ponies = "The ponies and the ponies";
    GpuAnalysisInput positional;
    positional.text = ponies;
    positional.offsets = {0, 0};
    positional.lengths = {0, static_cast<uint32_t>(ponies.size())};
    positional.html = {1, 1};
    positional.stopwords = AnalysisSettings::defaults().stopwords;
    positional.positional = true;
    const GpuAnalysisResult grouped = analyze_batch_on_host(positional);
    CHECK(grouped.term_begin == std::vector<uint64_t>{0, 0, 1});
    CHECK(grouped.bytes == "poni");
    CHECK(grouped.positions == std::vector<uint32_t>{1, 4});
    CHECK(grouped.tokens == std::vector<uint64_t>{0, 5});

    GpuAnalysisInput overlapping = input;
    overlapping.offsets = {0, 2};
    CHECK_THROWS_AS(analyze_batch_on_host(overlapping), Error);
    GpuAnalysisInput past_end = input;
    past_end.lengths = {3, 4};
    CHECK_THROWS_AS(analyze_batch_on_host(past_end), Error);
    GpuAnalysisInput uneven = input;
    uneven.html = {0};
    CHECK_THROWS_AS(analyze_batch_on_host(uneven), Error);
    CHECK(gpu_stemmer_named("porter") == GpuStemmer::porter);
    CHECK(gpu_stemmer_named("none") == GpuStemmer::none);
    CHECK_THROWS_AS(gpu_stemmer_named("english"), Error);
}
