#include <doctest/doctest.h>

#include <string>

#include "invidx/error.hpp"
#include "analysis/stem.hpp"

TEST_CASE("PorterStemmer: known outputs of the Porter algorithm") {
    invidx::PorterStemmer stemmer;
    const auto stem = [&](std::string_view word) { return std::string(stemmer.stem(word)); };
    CHECK(stem("caresses") == "caress");
    CHECK(stem("ponies") == "poni");
    CHECK(stem("relational") == "relat");
    CHECK(stem("generalizations") == "gener");
    CHECK(stem("running") == "run");
    CHECK(stem("hopping") == "hop");
    CHECK(stem("agreed") == "agre");
    CHECK(stem("cats") == "cat");
    CHECK(stem("sky") == "sky");
    CHECK(stem("ands") == "and");
    CHECK(stem("") == "");
    CHECK(stem("42") == "42");
    // Non-ASCII bytes are carried through as libstemmer does.
    CHECK(stem("caf\xC3\xA9s") == "caf\xC3\xA9");
}

TEST_CASE("PorterStemmer: 'none' is the identity, unknown names are errors") {
    invidx::PorterStemmer none("none");
    CHECK(none.identity());
    CHECK(none.stem("running") == "running");
    CHECK_THROWS_AS(invidx::PorterStemmer("portr"), invidx::Error);
    try {
        invidx::PorterStemmer bad("portr");
    } catch (const invidx::Error& e) {
        CHECK(std::string(e.what()).find("porter") != std::string::npos);  // lists the known ones
    }
}

TEST_CASE("PorterStemmer: moves keep one owner") {
    invidx::PorterStemmer a;
    invidx::PorterStemmer b = std::move(a);
    CHECK(b.stem("ponies") == "poni");
    invidx::PorterStemmer c("none");
    c = std::move(b);
    CHECK(c.stem("ponies") == "poni");
}

TEST_CASE("PorterStemmer: a token Porter stems to nothing is its own stem, never empty") {
    invidx::PorterStemmer stemmer;
    // libstemmer's porter leaves nothing of "s" (CONTENT.md §7 keeps the token).
    CHECK(stemmer.stem("s") == "s");
    CHECK(stemmer.stem("ss") == "ss");
    CHECK(stemmer.stem("cats") == "cat");  // other stems are untouched
    CHECK(stemmer.stem("") == "");
    invidx::PorterStemmer none("none");
    CHECK(none.stem("s") == "s");
}
