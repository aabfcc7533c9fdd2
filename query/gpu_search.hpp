// The GPU path of a Searcher (devices/gpu_query.hpp, Ding et al. §5): the
// present terms of analyzed queries become GpuQuery terms whose lists load
// on demand (bp128 query layouts stay compressed on the device, other lists
// are decoded here), answered one at a time or in batches with few kernel
// launches and one synchronization each. The same hits, scores and tie order
// as the CPU. A build without CUDA compiles this too: the device half then
// throws "built without CUDA", reported as a QueryError on the first query.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "analysis/analyzer.hpp"
#include "devices/gpu_query.hpp"
#include "query/searcher.hpp"

namespace invidx {

class GpuSearch {
public:
    // `searcher` must outlive this; `length_norms` (its own, by docid) and
    // its BM25 parameters go to the device.
    GpuSearch(const Searcher& searcher, const std::vector<double>& length_norms);
    ~GpuSearch();

    // One analyzed query whose terms are in the index (as Searcher::search
    // leaves it before evaluating): fills hits and stats.
    void search(const SearchOptions& options, SearchResult& result) const;
    // Searcher::search_gpu_batch.
    std::vector<SearchResult> search_batch(std::span<const std::string> texts, const SearchOptions& options) const;
    size_t max_batch(const SearchOptions& options) const;
    // The list cache and counters (empty before the first GPU query).
    GpuQueryStats stats() const;

private:
    // The present terms of an analyzed query, with how to load their lists.
    GpuQuery gpu_query(const SearchResult& result, const SearchOptions& options) const;
    // Made on first use; mutex_ held.
    GpuQueryProcessor& processor(const SearchOptions& options) const;

    const Searcher& searcher_;
    const std::vector<double>& length_norms_;
    // One device queue, so GPU queries of search_all take turns.
    mutable std::mutex mutex_;
    mutable std::unique_ptr<GpuQueryProcessor> processor_;
    // Analyzers kept between search_batch calls: making one costs more than
    // answering a small batch.
    mutable std::mutex spare_analyzers_mutex_;
    mutable std::vector<std::unique_ptr<Analyzer>> spare_analyzers_;
};

}  // namespace invidx
