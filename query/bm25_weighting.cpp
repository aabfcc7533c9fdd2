#include "query/bm25_weighting.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <limits>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>

#include "store/index_layout.hpp"

namespace invidx {

namespace {

// Relative widening of a derived bound: far above the rounding of the few
// operations behind it, far below any real gap between scores.
constexpr double kWiden = 1e-12;

std::atomic<uint64_t> weightings_made{0};

}  // namespace

Bm25Weighting::Bm25Weighting(const IndexReader& index, Bm25Parameters parameters, const QueryPostings* layout)
    : id_(++weightings_made),
      bm25_(parameters, index.num_documents(), index.average_length()), norms_(index.num_documents()) {
    oneapi::tbb::parallel_for(uint64_t{0}, index.num_documents(), [&](uint64_t docid) {
        norms_[docid] = bm25_.length_norm(index.document_length(static_cast<uint32_t>(docid)));
    });
    if (!layout) return;
    stored_ = layout->parameters();
    stored_fit_ = stored_.k1 == parameters.k1 && stored_.b == parameters.b;
    if (stored_fit_) return;
    // ρ over the documents that have postings (a document of length 0 has none).
    const Bm25 stored(stored_, index.num_documents(), index.average_length());
    norm_ratio_ = oneapi::tbb::parallel_reduce(
        oneapi::tbb::blocked_range<uint64_t>(0, index.num_documents()), std::numeric_limits<double>::infinity(),
        [&](const oneapi::tbb::blocked_range<uint64_t>& range, double smallest) {
            for (uint64_t d = range.begin(); d != range.end(); ++d) {
                const uint32_t length = index.document_length(static_cast<uint32_t>(d));
                if (length == 0) continue;
                const double old_norm = stored.length_norm(length);
                // A layout norm of 0 (k1₀ = 0) leaves tf/n0 unbounded: no ratio helps.
                smallest = std::min(smallest, old_norm > 0.0 ? norms_[d] / old_norm : 0.0);
            }
            return smallest;
        },
        [](double a, double b) { return std::min(a, b); });
    if (!(norm_ratio_ < std::numeric_limits<double>::infinity())) norm_ratio_ = 0.0;  // no document: no bound needed
}

double Bm25Weighting::derived_bound(double stored_max_tf_part) const {
    const double k1_plus_1 = bm25_.parameters().k1 + 1.0;
    const double cap = k1_plus_1 * (1.0 + kWiden);  // a tf part's range, with rounding
    const double widened = stored_max_tf_part * (1.0 + kWiden);
    const double room = stored_.k1 + 1.0 - widened;
    const double rho = norm_ratio_ * (1.0 - kWiden);
    if (!(room > 0.0) || !(rho > 0.0)) return cap;
    const double ratio = widened / room;  // ≥ tf / n0 for every posting of the block
    return std::min(cap, k1_plus_1 * ratio / (ratio + rho) * (1.0 + kWiden));
}

std::shared_ptr<const BlockMaxima> Bm25Weighting::exact_maxima(uint64_t term, const QueryList& list) const {
    if (stored_fit_) return nullptr;
    {
        std::lock_guard lock(mutex_);
        if (const auto found = exact_.find(term); found != exact_.end()) return found->second;
    }
    // Computed outside the lock: two threads may both compute a term, and the first kept wins.
    auto maxima = std::make_shared<BlockMaxima>();
    maxima->blocks.reserve(list.blocks().size());
    std::array<uint32_t, layout::kQueryBlockPostings> docids{}, tfs{};
    for (size_t k = 0; k < list.blocks().size(); ++k) {
        const uint32_t count = list.blocks()[k].postings;
        list.decode_docids(k, std::span(docids).first(count));
        list.decode_tfs(k, std::span(tfs).first(count));
        double largest = 0.0;
        for (uint32_t i = 0; i < count; ++i) largest = std::max(largest, bm25_.tf_part(tfs[i], norms_[docids[i]]));
        maxima->blocks.push_back(largest);
        maxima->list = std::max(maxima->list, largest);
    }
    std::lock_guard lock(mutex_);
    return exact_.try_emplace(term, std::move(maxima)).first->second;
}

std::shared_ptr<const BlockMaxima> Bm25Weighting::cheap_maxima(uint64_t term, const QueryList& list) const {
    if (stored_fit_) return nullptr;
    {
        std::lock_guard lock(mutex_);
        if (const auto found = exact_.find(term); found != exact_.end()) return found->second;
    }
    auto maxima = std::make_shared<BlockMaxima>();
    maxima->blocks.reserve(list.blocks().size());
    for (const QueryBlock& block : list.blocks()) {
        maxima->blocks.push_back(derived_bound(block.max_tf_part));
        maxima->list = std::max(maxima->list, maxima->blocks.back());
    }
    return maxima;
}

}  // namespace invidx
