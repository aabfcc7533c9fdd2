#include "query/query_terms.hpp"

#include <algorithm>

namespace invidx {

bool QueryTerms::all_in_index() const {
    return std::all_of(terms.begin(), terms.end(), [](const QueryTerm& t) { return t.index.has_value(); });
}

size_t QueryTerms::count_in_index() const {
    return static_cast<size_t>(std::count_if(terms.begin(), terms.end(), [](const QueryTerm& t) { return t.index.has_value(); }));
}

QueryTerms query_terms(Analyzer& analyzer, const IndexReader& index, std::string_view text) {
    QueryTerms out;
    for (auto& term : analyzer.analyze_query(text)) {
        // Queries are a handful of terms: a linear scan beats a hash set.
        const bool seen = std::any_of(out.terms.begin(), out.terms.end(), [&](const QueryTerm& t) { return t.term == term; });
        if (seen) continue;
        QueryTerm entry;
        entry.index = index.find_term(term);
        if (entry.index) entry.df = index.term(*entry.index).df;
        entry.term = std::move(term);
        out.terms.push_back(std::move(entry));
    }
    return out;
}

}  // namespace invidx
