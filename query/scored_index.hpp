// An index opened for ranking: its reader, BM25 over its collection with
// every document's length norm (read once, CONTENT.md §10), and its query-ready
// layout when it has one. What query plans are made against and what every
// evaluator reads; read-only once made (but for the weightings of other k1
// and b it keeps), so shared by all threads.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "query/algorithm.hpp"
#include "query/bm25_weighting.hpp"
#include "query/search_options.hpp"
#include "store/bm25.hpp"
#include "store/index_reader.hpp"
#include "store/query_postings.hpp"

namespace invidx {

class ScoredIndex {
public:
    // Reads every document's length once, in parallel.
    ScoredIndex(const IndexReader& index, Bm25Parameters parameters);
    ScoredIndex(const ScoredIndex&) = delete;
    ScoredIndex& operator=(const ScoredIndex&) = delete;

    const IndexReader& reader() const { return index_; }
    // The Searcher's BM25 (the k1 and b it was made with).
    const Bm25& bm25() const { return default_->bm25(); }
    const std::vector<double>& length_norms() const { return default_->length_norms(); }  // by docid
    const std::shared_ptr<const Bm25Weighting>& default_weighting() const { return default_; }
    // The BM25 a query with these options scores by: the default, or one
    // for the options' k1 and b (made on first use, the last few kept). A
    // QueryError for a k1 that is not finite and >= 0, a b outside [0, 1],
    // or k1 or b with impact scoring.
    std::shared_ptr<const Bm25Weighting> weighting_for(const SearchOptions& options) const;
    // The query-ready layout, when the index has one.
    const QueryPostings* query_postings() const { return query_postings_ ? &*query_postings_ : nullptr; }
    // The query layout an algorithm reads lists from: none for kMaxscore
    // (the run files) or when the index has none.
    const QueryPostings* layout_for(Algorithm algorithm) const {
        return algorithm == Algorithm::kMaxscore ? nullptr : query_postings();
    }
    // A QueryError unless the query layout holds impacts (`--scoring impact`).
    void require_impacts() const;

private:
    const IndexReader& index_;
    std::optional<QueryPostings> query_postings_;
    std::shared_ptr<const Bm25Weighting> default_;
    mutable std::mutex others_mutex_;
    mutable std::vector<std::shared_ptr<const Bm25Weighting>> others_;  // other k1, b; the latest used last
};

}  // namespace invidx
