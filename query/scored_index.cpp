#include "query/scored_index.hpp"

#include <oneapi/tbb/parallel_for.h>

#include "query/query_error.hpp"

namespace invidx {

ScoredIndex::ScoredIndex(const IndexReader& index, Bm25Parameters parameters)
    : index_(index), bm25_(parameters, index.num_documents(), index.average_length()), norms_(index.num_documents()) {
    oneapi::tbb::parallel_for(uint64_t{0}, index.num_documents(), [&](uint64_t docid) {
        norms_[docid] = bm25_.length_norm(index_.document_length(static_cast<uint32_t>(docid)));
    });
    if (QueryPostings::present(index_)) query_postings_.emplace(index_);
}

bool ScoredIndex::block_maxima_fit() const {
    return query_postings_ && query_postings_->parameters().k1 == bm25_.parameters().k1 &&
           query_postings_->parameters().b == bm25_.parameters().b;
}

void ScoredIndex::require_impacts() const {
    if (query_postings_ && query_postings_->has_impacts()) return;
    const std::string directory = index_.directory().string();
    throw QueryError("index " + directory + " has no impacts for --scoring impact; compute them first: invidx weight " +
                     directory + (query_postings_ ? "" : " (after invidx merge --layout query)"));
}

}  // namespace invidx
