#include "store/document_weights.hpp"

namespace invidx {

DocumentWeigher::DocumentWeigher(const IndexReader& index, TermLookupKind dictionary, Bm25Parameters parameters)
    : lookup_(index, dictionary), bm25_(parameters, index.num_documents(), index.average_length()) {
    dfs_.resize(index.term_count());
    for (uint64_t i = 0; i < dfs_.size(); ++i) dfs_[i] = index.term(i).df;
}

void DocumentWeigher::weigh(std::span<const DocumentTerm> terms, uint32_t length, DocumentWeights& out) const {
    out.clear();
    const double norm = bm25_.length_norm(length);
    for (const DocumentTerm& term : terms) {
        const auto index = lookup_.find(term.term);
        if (!index) {
            out.unknown.push_back(term);
            continue;
        }
        const uint64_t df = dfs_[*index];
        out.known.push_back({.term = term.term, .tf = term.tf, .term_index = *index, .df = df,
                             .weight = bm25_.score(bm25_.idf(df), term.tf, norm)});
    }
}

}  // namespace invidx
