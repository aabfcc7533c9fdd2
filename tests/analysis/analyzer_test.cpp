#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "analysis/analyzer.hpp"
#include "analysis/collection.hpp"

namespace {

struct TermView {
    uint32_t tf;
    std::vector<uint32_t> positions;
    bool operator==(const TermView&) const = default;
};

// The analysis as a map term -> (tf, positions), checking the layout
// invariants of DocumentTerms on the way.
std::map<std::string, TermView> as_map(const invidx::DocumentTerms& doc) {
    std::map<std::string, TermView> out;
    uint64_t length = 0;
    for (const auto& term : doc.terms) {
        const std::string text(doc.term(term));
        CHECK(out.count(text) == 0);  // unique
        CHECK(term.collection == invidx::collection_of(text));
        TermView view{term.tf, {}};
        if (!doc.positions.empty()) {
            REQUIRE(term.first_position_index + term.tf <= doc.positions.size());
            view.positions.assign(doc.positions.begin() + term.first_position_index,
                                  doc.positions.begin() + term.first_position_index + term.tf);
        }
        length += term.tf;
        out.emplace(text, view);
    }
    CHECK(doc.length == length);
    return out;
}

std::vector<std::string> term_order(const invidx::DocumentTerms& doc) {
    std::vector<std::string> out;
    for (const auto& term : doc.terms) out.emplace_back(doc.term(term));
    return out;
}

invidx::AnalysisSettings positional() {
    auto settings = invidx::AnalysisSettings::defaults();
    settings.positions = true;
    return settings;
}

}  // namespace

TEST_CASE("Analyzer: stop words are dropped but keep their positions") {
    invidx::Analyzer analyzer(positional());
    invidx::DocumentTerms doc;
    analyzer.analyze("The cat and the Hat; the CAT sat.", false, doc);
    using Map = std::map<std::string, TermView>;
    CHECK(as_map(doc) == Map{{"cat", {2, {1, 6}}}, {"hat", {1, {4}}}, {"sat", {1, {7}}}});
    CHECK(term_order(doc) == std::vector<std::string>{"cat", "hat", "sat"});
    CHECK(doc.tokens == 8);
    CHECK(doc.length == 4);
}

TEST_CASE("Analyzer: stop words are tested before stemming") {
    invidx::Analyzer analyzer(invidx::AnalysisSettings::defaults());
    invidx::DocumentTerms doc;
    // "this" is a stop word (stemming it first would give "thi");
    // "ands" is not, though it stems to the stop word "and".
    analyzer.analyze("this ands", false, doc);
    CHECK(term_order(doc) == std::vector<std::string>{"and"});
    CHECK(doc.tokens == 2);
}

TEST_CASE("Analyzer: terms are stemmed and tf aggregated per stem") {
    invidx::Analyzer analyzer(invidx::AnalysisSettings::defaults());
    invidx::DocumentTerms doc;
    analyzer.analyze("Running runs; ponies PONY caresses", false, doc);
    using Map = std::map<std::string, TermView>;
    CHECK(as_map(doc) == Map{{"run", {2, {}}}, {"poni", {2, {}}}, {"caress", {1, {}}}});
    CHECK(doc.positions.empty());  // not positional
}

TEST_CASE("Analyzer: HTML is stripped only when asked") {
    invidx::Analyzer analyzer(invidx::AnalysisSettings::defaults());
    invidx::DocumentTerms doc;
    analyzer.analyze("<p class=x>hello</p><script>var hidden;</script>&amp;world", true, doc);
    CHECK(term_order(doc) == std::vector<std::string>{"hello", "world"});
    analyzer.analyze("<p>hello</p>", false, doc);
    CHECK(term_order(doc) == std::vector<std::string>{"p", "hello"});  // "p" twice
    CHECK(doc.terms[0].tf == 2);
}

TEST_CASE("Analyzer: empty documents and documents of stop words only") {
    invidx::Analyzer analyzer(positional());
    invidx::DocumentTerms doc;
    analyzer.analyze("", true, doc);
    CHECK(doc.terms.empty());
    CHECK(doc.length == 0);
    CHECK(doc.tokens == 0);
    analyzer.analyze("<html><!-- nothing --></html>", true, doc);
    CHECK(doc.terms.empty());
    analyzer.analyze("the and of", false, doc);
    CHECK(doc.terms.empty());
    CHECK(doc.length == 0);
    CHECK(doc.tokens == 3);
    CHECK(doc.positions.empty());
}

TEST_CASE("Analyzer: dropped long tokens take no position") {
    invidx::Analyzer analyzer(positional());
    invidx::DocumentTerms doc;
    analyzer.analyze("alpha " + std::string(256, 'x') + " beta", false, doc);
    using Map = std::map<std::string, TermView>;
    CHECK(as_map(doc) == Map{{"alpha", {1, {0}}}, {"beta", {1, {1}}}});
    CHECK(doc.tokens == 2);
}

TEST_CASE("Analyzer: matches a simple model on many distinct terms, document after document") {
    auto settings = positional();
    settings.stemmer = "none";
    settings.stopwords = {"w7"};
    invidx::Analyzer analyzer(settings);
    invidx::DocumentTerms doc;
    for (uint32_t round = 0; round < 3; ++round) {
        // Enough distinct terms to grow the table several times; a different
        // vocabulary per round so that a stale entry would show.
        std::string text;
        std::map<std::string, TermView> expected;
        uint32_t position = 0;
        for (uint32_t i = 0; i < 5000; ++i) {
            const uint32_t id = (i * 7919u + round) % (1500 + round * 1000);
            const std::string token = "w" + std::to_string(id) + (round == 1 ? "q" : "");
            text += token + (i % 3 ? " " : ", ");
            if (token != "w7") {
                auto& term = expected[token];
                ++term.tf;
                term.positions.push_back(position);
            }
            ++position;
        }
        analyzer.analyze(text, false, doc);
        CHECK(as_map(doc) == expected);
        CHECK(doc.tokens == 5000);
    }
}

TEST_CASE("Analyzer: analyze_query keeps order and duplicates, no HTML") {
    invidx::Analyzer analyzer(invidx::AnalysisSettings::defaults());
    CHECK(analyzer.analyze_query("The Running dogs and the dog") == std::vector<std::string>{"run", "dog", "dog"});
    CHECK(analyzer.analyze_query("<b>bold</b>") == std::vector<std::string>{"b", "bold", "b"});
    CHECK(analyzer.analyze_query("the").empty());
    CHECK(analyzer.analyze_query("").empty());
}

TEST_CASE("Analyzer: no stop words, no stemming") {
    auto settings = invidx::AnalysisSettings::defaults();
    settings.stopwords.clear();
    settings.stemmer = "none";
    invidx::Analyzer analyzer(settings);
    CHECK(analyzer.analyze_query("The running ponies") == std::vector<std::string>{"the", "running", "ponies"});
}

TEST_CASE("Analyzer: a token Porter stems to nothing is indexed as itself, never as an empty term") {
    invidx::Analyzer analyzer(positional());
    invidx::DocumentTerms doc;
    // "it" is a stop word; the "s" of "it's", "'s", "S" and a lone "s" are
    // the term "s" (Porter alone would leave ""); "cats'" is "cat".
    analyzer.analyze("It's the cats' toy: 's, S and s.", false, doc);
    using Map = std::map<std::string, TermView>;
    CHECK(as_map(doc) == Map{{"s", {4, {1, 5, 6, 8}}}, {"cat", {1, {3}}}, {"toi", {1, {4}}}});
    for (const auto& term : doc.terms) CHECK(!doc.term(term).empty());
    // Queries are analyzed by the same code.
    CHECK(analyzer.analyze_query("it's S") == std::vector<std::string>{"s", "s"});
}
