// Weights of documents outside the index (store/document_weights.hpp),
// checked against CONTENT.md §10 worked out by hand on a four-document index.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "store/document_weights.hpp"
#include "store/index_reader.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"

using namespace invidx;
using namespace invidx::testing;

TEST_CASE("document weights: CONTENT.md §10 by hand against a four-document index, unknown terms reported") {
    TempDir dir;
    // Terms (Porter-stemmed): appl df 2, banana df 2, cherri df 1, date df 1;
    // lengths 2, 3, 1, 1.
    const auto path = build_text_index(dir, {"apple banana", "apple cherry cherry", "banana", "date"});
    const IndexReader index(path);
    REQUIRE(index.num_documents() == 4);
    REQUIRE(index.total_length() == 7);
    for (const auto kind : {TermLookupKind::xbw, TermLookupKind::hash}) {
        CAPTURE(term_lookup_name(kind));
        const DocumentWeigher weigher(index, kind, {.k1 = 0.9, .b = 0.4});
        // A new document "apple apple cherry zebra", analyzed: length 4.
        const std::vector<DocumentTerm> terms = {{"appl", 2}, {"zebra", 1}, {"cherri", 1}};
        DocumentWeights weights;
        weigher.weigh(terms, 4, weights);
        REQUIRE(weights.known.size() == 2);
        REQUIRE(weights.unknown.size() == 1);
        CHECK(weights.unknown[0].term == "zebra");
        CHECK(weights.unknown[0].tf == 1);
        // N = 4, avgdl = 7/4 = 1.75, dl = 4: k1·(1 − b + b·dl/avgdl) = 0.9·(0.6 + 0.4·4/1.75).
        const double norm = 0.9 * (0.6 + 0.4 * 4.0 / 1.75);
        const double apple = std::log(1.0 + (4.0 - 2.0 + 0.5) / (2.0 + 0.5)) * (2.0 * 1.9) / (2.0 + norm);   // ln 2 · 3.8/(2 + norm)
        const double cherry = std::log(1.0 + (4.0 - 1.0 + 0.5) / (1.0 + 0.5)) * (1.0 * 1.9) / (1.0 + norm);  // ln(10/3) · 1.9/(1 + norm)
        CHECK(weights.known[0].term == "appl");
        CHECK(weights.known[0].df == 2);
        CHECK(weights.known[0].tf == 2);
        CHECK(weights.known[0].term_index == *index.find_term("appl"));
        CHECK(weights.known[0].weight == doctest::Approx(apple).epsilon(1e-12));
        CHECK(weights.known[0].weight == doctest::Approx(0.6931471805599453 * 3.8 / (2.0 + 1.3628571428571429)).epsilon(1e-12));
        CHECK(weights.known[1].term == "cherri");
        CHECK(weights.known[1].df == 1);
        CHECK(weights.known[1].weight == doctest::Approx(cherry).epsilon(1e-12));
        // Other parameters change the weight as the formula says.
        const DocumentWeigher flat(index, kind, {.k1 = 1.2, .b = 0.0});
        flat.weigh(terms, 4, weights);
        CHECK(weights.known[0].weight == doctest::Approx(std::log(2.0) * (2.0 * 2.2) / (2.0 + 1.2)).epsilon(1e-12));
        // Nothing known: nothing weighted, everything reported.
        flat.weigh(std::vector<DocumentTerm>{{"", 1}, {"app", 1}, {"apple", 1}}, 3, weights);
        CHECK(weights.known.empty());
        CHECK(weights.unknown.size() == 3);
    }
}
