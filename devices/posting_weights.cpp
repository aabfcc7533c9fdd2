// The host side of GPU BM25 weighting (devices/gpu_weights.hpp): the input
// checks both computations share, the device memory one call needs, and the
// host reference of gpu_posting_weights. The reference repeats
// store/bm25.hpp's arithmetic expression for expression (this layer may not
// include the store), so that its weights are the CPU weighting's bit for
// bit; the tests hold both to that.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "devices/gpu_weights.hpp"
#include "invidx/error.hpp"

namespace invidx {

void check_weight_input(const GpuWeightInput& input) {
    const auto& offsets = input.term_offsets;
    ensure(!offsets.empty() && offsets.front() == 0 && offsets.back() == input.docids.size(),
           "posting weights: term_offsets must run from 0 to the number of postings");
    for (size_t t = 1; t < offsets.size(); ++t) ensure(offsets[t - 1] <= offsets[t], "posting weights: term_offsets decrease");
    ensure(input.tfs.size() == input.docids.size(), "posting weights: docids and tfs differ in size");
    // CUB's scans and reductions count items in int.
    ensure(input.docids.size() < uint64_t{std::numeric_limits<int>::max()} &&
               offsets.size() < uint64_t{std::numeric_limits<int>::max()},
           "posting weights: more than 2^31 - 1 postings or terms in one call");
    for (const uint32_t docid : input.docids) {
        ensure(docid < input.document_lengths.size(), "posting weights: a docid beyond the document lengths");
    }
    for (const uint32_t tf : input.tfs) ensure(tf > 0, "posting weights: a tf of 0");
    ensure(std::isfinite(input.average_length) && input.average_length > 0.0, "posting weights: average length must be > 0");
    ensure(input.bits >= 1 && input.bits <= 16, "posting weights: bits must be 1 to 16");
    ensure(!input.max_weight || (std::isfinite(*input.max_weight) && *input.max_weight > 0.0),
           "posting weights: a given largest weight must be positive and finite");
}

uint64_t gpu_weight_device_bytes(uint64_t terms, uint64_t postings, uint64_t documents) {
    // Per posting: docid, tf, head flag, term, a one, impact (4 bytes each)
    // and the weight (8). Per term: offset (8), df (4), idf (8). Per
    // document: length (4), norm (8). CUB's temporary storage is a few bytes
    // per tile of thousands of items; 1/16 byte per posting and a fixed 16 MiB
    // cover it and the allocator's rounding.
    constexpr uint64_t kSlack = uint64_t{16} << 20;
    return 32 * postings + 20 * (terms + 1) + 12 * documents + postings / 16 + kSlack;
}

GpuWeights posting_weights_on_host(const GpuWeightInput& input, bool keep_weights) {
    check_weight_input(input);
    GpuWeights out;
    out.device = "host reference";
    const uint64_t terms = input.term_offsets.size() - 1;
    const uint64_t postings = input.docids.size();
    if (postings == 0) return out;
    const double documents = static_cast<double>(input.document_lengths.size());
    const double k1 = input.k1, b = input.b;

    // Bm25::length_norm of every document.
    std::vector<double> norms(input.document_lengths.size());
    for (size_t d = 0; d < norms.size(); ++d) {
        norms[d] = k1 * (1.0 - b + b * static_cast<double>(input.document_lengths[d]) / input.average_length);
    }
    // Per term: df is its postings' count, Bm25::idf of it; per posting Bm25::score.
    std::vector<double> weights(postings);
    for (uint64_t t = 0; t < terms; ++t) {
        const uint64_t first = input.term_offsets[t], last = input.term_offsets[t + 1];
        const double df = static_cast<double>(last - first);
        const double idf = std::log(1.0 + (documents - df + 0.5) / (df + 0.5));
        for (uint64_t p = first; p < last; ++p) {
            const double f = static_cast<double>(input.tfs[p]);
            weights[p] = idf * (f * (k1 + 1.0) / (f + norms[input.docids[p]]));
        }
    }
    out.max_weight = *std::max_element(weights.begin(), weights.end());
    // ImpactQuantizer over the given largest weight, else the input's own.
    const double scale = input.max_weight ? *input.max_weight : out.max_weight;
    const uint32_t range = (uint32_t{1} << input.bits) - 1;
    out.impacts.resize(postings);
    for (uint64_t p = 0; p < postings; ++p) {
        const double scaled = std::ceil(weights[p] / scale * static_cast<double>(range));
        out.impacts[p] = !(scaled >= 1.0) ? 1u : scaled >= static_cast<double>(range) ? range : static_cast<uint32_t>(scaled);
    }
    if (keep_weights) out.weights = std::move(weights);
    return out;
}

}  // namespace invidx
