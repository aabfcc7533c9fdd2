// Ranked retrieval over an IndexReader (SPEC §7): analyzes a query, loads
// its terms' lists once, and runs daat_and (AND) or maxscore_or (OR). Lists
// come from the query-ready layout (query.post) when the index has one, from
// the run files otherwise; the results are the same.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "nodes/analyze/analyzer.hpp"
#include "query/bm25.hpp"
#include "query/query_stats.hpp"
#include "query/query_terms.hpp"
#include "query/topk.hpp"
#include "store/index_reader.hpp"
#include "store/query_postings.hpp"

namespace invidx {

enum class QueryMode { kAnd, kOr };

struct SearchOptions {
    size_t k = 10;
    QueryMode mode = QueryMode::kOr;
    bool exhaustive = false;  // OR without dynamic pruning (the reference MaxScore equals)
};

struct SearchResult {
    QueryTerms terms;
    std::vector<ScoredDocument> hits;  // best first
    QueryStats stats;
};

class Searcher {
public:
    // Reads every document's length once (the BM25 length norms).
    explicit Searcher(const IndexReader& index, Bm25Parameters parameters = {});

    const IndexReader& index() const { return index_; }
    const Bm25& bm25() const { return bm25_; }
    std::span<const double> length_norms() const { return norms_; }
    // The query-ready layout, when the index has one.
    const QueryPostings* query_postings() const { return query_postings_ ? &*query_postings_ : nullptr; }

    // One query; `analyzer` must use the index's analysis settings (one per thread).
    SearchResult search(std::string_view text, const SearchOptions& options, Analyzer& analyzer) const;
    SearchResult search(std::string_view text, const SearchOptions& options) const;

    // Many queries on all threads (oneTBB); results in input order.
    std::vector<SearchResult> search_all(std::span<const std::string> texts, const SearchOptions& options) const;

private:
    const IndexReader& index_;
    Bm25 bm25_;
    std::vector<double> norms_;  // by docid
    std::optional<QueryPostings> query_postings_;
};

}  // namespace invidx
