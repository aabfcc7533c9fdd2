// An index opened for ranking: its reader, BM25 over its collection with
// every document's length norm (read once, CONTENT.md §10), and its query-ready
// layout when it has one. What query plans are made against and what every
// evaluator reads; read-only once made, so shared by all threads.
#pragma once

#include <optional>
#include <vector>

#include "query/algorithm.hpp"
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
    const Bm25& bm25() const { return bm25_; }
    const std::vector<double>& length_norms() const { return norms_; }  // by docid
    // The query-ready layout, when the index has one.
    const QueryPostings* query_postings() const { return query_postings_ ? &*query_postings_ : nullptr; }
    // The query layout an algorithm reads lists from: none for kMaxscore
    // (the run files) or when the index has none.
    const QueryPostings* layout_for(Algorithm algorithm) const {
        return algorithm == Algorithm::kMaxscore ? nullptr : query_postings();
    }
    // Whether the query layout's block maxima bound this BM25's scores: they
    // hold the exact tf part for the k1 and b they were made with.
    bool block_maxima_fit() const;
    // A QueryError unless the query layout holds impacts (`--scoring impact`).
    void require_impacts() const;

private:
    const IndexReader& index_;
    Bm25 bm25_;
    std::vector<double> norms_;
    std::optional<QueryPostings> query_postings_;
};

}  // namespace invidx
