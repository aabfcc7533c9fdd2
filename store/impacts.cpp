#include "store/impacts.hpp"

#include <cmath>
#include <functional>
#include <string>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>

#include "invidx/error.hpp"

namespace invidx {

ImpactQuantizer::ImpactQuantizer(double max_weight, unsigned bits) : max_weight_(max_weight), bits_(bits) {
    if (bits < kMinImpactBits || bits > kMaxImpactBits) {
        throw Error("impact bits must be " + std::to_string(kMinImpactBits) + " to " + std::to_string(kMaxImpactBits) +
                    ", not " + std::to_string(bits));
    }
    if (!std::isfinite(max_weight) || max_weight <= 0.0) {
        throw Error("the largest BM25 weight must be positive and finite, not " + std::to_string(max_weight));
    }
    range_ = (uint32_t{1} << bits) - 1;
}

void posting_weights(const Bm25& bm25, uint64_t df, std::span<const uint32_t> docids, std::span<const uint32_t> tfs,
                     std::span<const double> norms, std::span<double> out) {
    ensure(docids.size() == tfs.size() && out.size() == docids.size(), "posting_weights: docids, tfs and out differ in size");
    const double idf = bm25.idf(df);
    for (size_t i = 0; i < docids.size(); ++i) out[i] = bm25.score(idf, tfs[i], norms[docids[i]]);
}

std::vector<double> length_norms(const IndexReader& index, const Bm25& bm25) {
    std::vector<double> norms(index.num_documents());
    oneapi::tbb::parallel_for(uint64_t{0}, index.num_documents(), [&](uint64_t docid) {
        norms[docid] = bm25.length_norm(index.document_length(static_cast<uint32_t>(docid)));
    });
    return norms;
}

double max_posting_weight(const IndexReader& index, const Bm25& bm25, std::span<const double> norms) {
    return oneapi::tbb::parallel_reduce(
        oneapi::tbb::blocked_range<uint64_t>(0, index.term_count()), 0.0,
        [&](const oneapi::tbb::blocked_range<uint64_t>& terms, double best) {
            std::vector<double> weights;
            for (uint64_t term = terms.begin(); term != terms.end(); ++term) {
                const auto list = index.postings(term);
                weights.resize(list.docids.size());
                posting_weights(bm25, index.term(term).df, list.docids, list.tfs, norms, weights);
                for (const double w : weights) best = std::max(best, w);
            }
            return best;
        },
        [](double a, double b) { return std::max(a, b); });
}

}  // namespace invidx
