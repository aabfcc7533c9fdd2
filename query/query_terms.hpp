// A query's terms: the text analyzed as documents are (CONTENT.md §4-7), duplicates
// removed, each looked up in the index.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analyzer.hpp"
#include "store/index_reader.hpp"

namespace invidx {

struct QueryTerm {
    std::string term;
    std::optional<uint64_t> index;  // into the index's dictionary; none if absent
    uint64_t df = 0;
};

struct QueryTerms {
    // Distinct analyzed terms in order of first occurrence. Empty when every
    // word analyzes away (stop words, no token characters).
    std::vector<QueryTerm> terms;

    bool empty() const { return terms.empty(); }
    bool all_in_index() const;   // what AND needs to have any result
    size_t count_in_index() const;
};

QueryTerms query_terms(Analyzer& analyzer, const IndexReader& index, std::string_view text);

// One term looked up in the index as it is (no analysis).
QueryTerm look_up_term(const IndexReader& index, std::string term);

}  // namespace invidx
