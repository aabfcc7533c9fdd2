// Every posting of an index, term by term, as gpu_posting_weights and its
// host reference take them (devices/gpu_weights.hpp), gathered with the
// store's reader; and the index's CPU weights (store/impacts.hpp) in the
// same order, the reference both are held to.
#pragma once

#include <span>
#include <vector>

#include "devices/gpu_weights.hpp"
#include "store/bm25.hpp"
#include "store/impacts.hpp"
#include "store/index_reader.hpp"

namespace invidx::testing {

inline GpuWeightInput weight_input(const IndexReader& index, Bm25Parameters parameters, unsigned bits) {
    GpuWeightInput input;
    input.term_offsets.push_back(0);
    for (uint64_t t = 0; t < index.term_count(); ++t) {
        const auto list = index.postings(t);
        input.docids.insert(input.docids.end(), list.docids.begin(), list.docids.end());
        input.tfs.insert(input.tfs.end(), list.tfs.begin(), list.tfs.end());
        input.term_offsets.push_back(input.docids.size());
    }
    for (uint32_t d = 0; d < index.num_documents(); ++d) input.document_lengths.push_back(index.document_length(d));
    input.average_length = index.average_length();
    input.k1 = parameters.k1;
    input.b = parameters.b;
    input.bits = bits;
    return input;
}

// store/impacts.hpp's posting_weights of every term, in weight_input's order.
inline std::vector<double> cpu_weights(const IndexReader& index, const Bm25& bm25, std::span<const double> norms) {
    std::vector<double> weights;
    for (uint64_t t = 0; t < index.term_count(); ++t) {
        const auto list = index.postings(t);
        std::vector<double> term(list.docids.size());
        posting_weights(bm25, index.term(t).df, list.docids, list.tfs, norms, term);
        weights.insert(weights.end(), term.begin(), term.end());
    }
    return weights;
}

}  // namespace invidx::testing
