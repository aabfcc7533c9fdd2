// The vector token scan against the scalar reference (strip_html + tokenize):
// the same tokens in the same order (hence the same positions) and the same
// terms, on the bundled sample, generated collections and a million
// generated fragments, on every instruction set this machine has.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "support/analysis_inputs.hpp"
#include "support/collections.hpp"
#include "analysis/analyzer.hpp"
#include "analysis/html.hpp"
#include "analysis/token_scan.hpp"
#include "analysis/tokenize.hpp"

namespace {

using invidx::TokenScan;

std::vector<std::string> scalar_tokens(std::string_view text, bool html) {
    std::string stripped;
    if (html) {
        invidx::strip_html(text, stripped);
        text = stripped;
    }
    std::vector<std::string> tokens;
    invidx::tokenize(text, [&](std::string_view token) { tokens.emplace_back(token); });
    return tokens;
}

std::vector<std::string> vector_tokens(invidx::TokenScanner& scanner, std::string_view text, bool html) {
    scanner.scan(text, html);
    std::vector<std::string> tokens;
    for (const auto& span : scanner) tokens.emplace_back(scanner.token(span));
    return tokens;
}

// Runs `check` once per instruction set (the default choice restored after).
template <class Check>
void on_every_target(Check&& check) {
    const auto targets = invidx::vector_scan_targets();
    REQUIRE(!targets.empty());
    for (const auto& target : targets) {
        CAPTURE(target.name);
        invidx::use_vector_scan_target(target.id);
        CHECK(invidx::vector_scan_target_name() == target.name);
        check(target);
    }
    invidx::use_vector_scan_target(0);
    CHECK(invidx::vector_scan_target_name() == targets.back().name);  // the best one again
}

using Doc = invidx::testing::AnalysisDocument;
using invidx::testing::long_tokens;
using invidx::testing::random_fragment;
using invidx::testing::sample_documents;

std::vector<std::string> terms_of(invidx::Analyzer& analyzer, const Doc& doc) {
    invidx::DocumentTerms terms;
    analyzer.analyze(doc.text, doc.html, terms);
    return invidx::testing::terms_lines(terms);
}

void check_same_terms(const std::vector<Doc>& docs) {
    auto settings = invidx::AnalysisSettings::defaults();
    settings.positions = true;
    invidx::Analyzer scalar(settings, TokenScan::scalar);
    std::vector<std::vector<std::string>> expected;
    for (const auto& doc : docs) expected.push_back(terms_of(scalar, doc));
    on_every_target([&](const invidx::ScanTarget&) {
        invidx::Analyzer vector(settings, TokenScan::vector);
        invidx::TokenScanner scanner;
        size_t differing = 0;
        for (size_t d = 0; d < docs.size(); ++d) {
            if (terms_of(vector, docs[d]) != expected[d]) ++differing;
            if (vector_tokens(scanner, docs[d].text, docs[d].html) != scalar_tokens(docs[d].text, docs[d].html)) {
                ++differing;
            }
        }
        CHECK(differing == 0);
    });
}

}  // namespace

TEST_CASE("vector token scan: the build has it and the analyzer uses it by default") {
    if (!invidx::vector_scan_built()) {
        CHECK(invidx::default_token_scan() == TokenScan::scalar);
        CHECK_THROWS(invidx::Analyzer(invidx::AnalysisSettings::defaults(), TokenScan::vector));
        return;
    }
    CHECK(invidx::default_token_scan() == TokenScan::vector);
    CHECK(invidx::Analyzer(invidx::AnalysisSettings::defaults()).token_scan() == TokenScan::vector);
}

TEST_CASE("vector token scan: hand-made cases") {
    if (!invidx::vector_scan_built()) return;
    const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
        {"Hello, World", {"hello", "world"}},
        {"a<b>c", {"a", "c"}},
        {"a<1b", {"a", "1b"}},
        {"x&amp;y & z", {"x", "y", "z"}},
        {"caf\xC3\xA9<!-- no -->cr\xC3\xA8me", {"caf\xC3\xA9", "cr\xC3\xA8me"}},
        {"one<script>two</script>three", {"one", "three"}},
        {"\xC3<p>\xA9x", {"x"}},  // a character cut by a tag is ill-formed on both sides
        {std::string(255, 'a') + " " + std::string(256, 'b') + " c", {std::string(255, 'a'), "c"}},
    };
    on_every_target([&](const invidx::ScanTarget&) {
        invidx::TokenScanner scanner;
        for (const auto& [text, expected] : cases) {
            CAPTURE(text);
            CHECK(vector_tokens(scanner, text, true) == expected);
            CHECK(scalar_tokens(text, true) == expected);
        }
        CHECK(vector_tokens(scanner, "a<b>c", false) == std::vector<std::string>{"a", "b", "c"});
        CHECK(vector_tokens(scanner, "", true).empty());
    });
}

TEST_CASE("vector token scan: the bundled sample collection gives the scalar terms and positions") {
    if (!invidx::vector_scan_built()) return;
    const auto docs = sample_documents();
    REQUIRE(docs.size() > 50);
    check_same_terms(docs);
}

TEST_CASE("vector token scan: generated collections give the scalar terms and positions") {
    if (!invidx::vector_scan_built()) return;
    std::mt19937 random(17);
    const auto words = invidx::testing::test_vocabulary(random, 300);
    std::vector<Doc> docs;
    for (int d = 0; d < 200; ++d) {
        docs.push_back(Doc{invidx::testing::random_html(random, words, 10 + random() % 600), d % 5 != 0});
    }
    check_same_terms(docs);
}

TEST_CASE("vector token scan: a document over 16 MiB (scalar scan in a vector analyzer) gives the same terms") {
    if (!invidx::vector_scan_built()) return;
    std::mt19937 random(5);
    const auto words = invidx::testing::test_vocabulary(random, 300);
    Doc big{"", true};
    while (big.text.size() <= (size_t{16} << 20)) big.text += invidx::testing::random_html(random, words, 2000);
    const Doc small{big.text.substr(0, size_t{1} << 20), true};
    auto settings = invidx::AnalysisSettings::defaults();
    settings.positions = true;
    invidx::Analyzer scalar(settings, TokenScan::scalar);
    invidx::Analyzer vector(settings, TokenScan::vector);
    CHECK(terms_of(vector, big) == terms_of(scalar, big));
    CHECK(terms_of(vector, small) == terms_of(scalar, small));  // and the vector scan again after it
}

TEST_CASE("vector token scan: a million generated fragments, cut at every offset of a block") {
    if (!invidx::vector_scan_built()) return;
    const auto p = invidx::testing::html_pieces();
    const auto longs = long_tokens();
    const auto targets = invidx::vector_scan_targets();
    // The best instruction set gets most of the inputs; every other one a share.
    size_t inputs = 0;
    on_every_target([&](const invidx::ScanTarget& target) {
        const bool best = target.id == targets.back().id;
        std::mt19937 random(static_cast<unsigned>(target.id % 1000003));
        invidx::TokenScanner scanner;
        size_t differing = 0;
        const int fragments = best ? 11000 : 2000;
        for (int f = 0; f < fragments; ++f) {
            std::string fragment = random_fragment(random, p, 1 + random() % 24);
            if (f % 16 == 0) fragment += longs[random() % longs.size()] + random_fragment(random, p, 4);
            // The same fragment after 0..63 filler bytes: every construct and
            // character meets every offset within a 64-byte block, and
            // every cut of the fragment's end is tried by the prefixes.
            const std::string filler = f % 2 ? std::string(64, 'f') : std::string(64, ' ');
            for (size_t shift = 0; shift < 64; ++shift) {
                const std::string text = filler.substr(0, shift) + fragment;
                const std::string_view cut = std::string_view(text).substr(0, text.size() - shift % 7);
                for (const bool html : {true, false}) {
                    if (!html && shift % 4 != 0) continue;
                    ++inputs;
                    if (vector_tokens(scanner, cut, html) != scalar_tokens(cut, html)) {
                        if (++differing <= 3) FAIL_CHECK("differs: " << std::string(cut) << " html=" << html);
                    }
                }
            }
        }
        CHECK(differing == 0);
    });
    CHECK(inputs >= 1000000);
}
