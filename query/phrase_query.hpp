// The phrases of a query: each double-quoted part, analyzed as documents are
// (CONTENT.md §4-7) but keeping where each term stands. A stop word is not a term
// yet still takes a position (CONTENT.md §4, §4.1), so "bank of america" is bank at
// offset 0 and america at offset 2: any one token may stand between them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analyzer.hpp"

namespace invidx {

struct PhraseTerm {
    std::string term;
    uint32_t offset = 0;  // token position relative to the phrase's first term
};

struct Phrase {
    std::string text;               // as quoted, for messages
    std::vector<PhraseTerm> terms;  // in phrase order; the first has offset 0
};

// One phrase: `quoted` (the text between its quotes) analyzed as
// documents are; no term when it analyzes away.
Phrase analyze_phrase(Analyzer& analyzer, std::string_view quoted);

// The quoted parts of `text`, in order. Every '"' opens or closes a phrase; an
// odd number of them is a QueryError. Leading and trailing stop words of a
// phrase constrain nothing (nothing is indexed there to check), so they are
// dropped; a phrase left with no term (empty, or stop words only) is dropped.
std::vector<Phrase> query_phrases(Analyzer& analyzer, std::string_view text);

}  // namespace invidx
