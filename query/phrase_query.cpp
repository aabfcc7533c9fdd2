#include "query/phrase_query.hpp"

#include "analysis/tokenize.hpp"
#include "query/query_error.hpp"

namespace invidx {

Phrase analyze_phrase(Analyzer& analyzer, std::string_view quoted) {
    Phrase phrase{.text = std::string(quoted), .terms = {}};
    // The document tokenizer, so positions advance exactly as in documents:
    // one per kept token, stop words included, over-long tokens not (CONTENT.md §4).
    uint32_t position = 0;
    tokenize(quoted, [&](std::string_view token) {
        const uint32_t this_position = position++;
        // A token is one maximal run of token characters: analyzing it alone
        // gives its term, or nothing for a stop word.
        auto terms = analyzer.analyze_query(token);
        if (terms.empty()) return;
        phrase.terms.push_back({std::move(terms.front()), this_position});
    });
    if (!phrase.terms.empty()) {
        const uint32_t first = phrase.terms.front().offset;  // leading stop words dropped
        for (auto& term : phrase.terms) term.offset -= first;
    }
    return phrase;
}

std::vector<Phrase> query_phrases(Analyzer& analyzer, std::string_view text) {
    std::vector<Phrase> phrases;
    size_t open = text.find('"');
    while (open != std::string_view::npos) {
        const size_t close = text.find('"', open + 1);
        if (close == std::string_view::npos) {
            throw QueryError("unterminated quote in query '" + std::string(text) + "': a phrase needs a closing '\"'");
        }
        Phrase phrase = analyze_phrase(analyzer, text.substr(open + 1, close - open - 1));
        if (!phrase.terms.empty()) phrases.push_back(std::move(phrase));
        open = text.find('"', close + 1);
    }
    return phrases;
}

}  // namespace invidx
