// A Searcher behind the query scheduler (query/query_scheduler.hpp): the
// features its cost model reads, the CPU and GPU processors its workers
// call, and a whole query list run through it. The scheduler itself knows
// processors only, so its tests drive it with fakes.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analyzer.hpp"
#include "query/query_cost_model.hpp"
#include "query/query_scheduler.hpp"
#include "query/searcher.hpp"

namespace invidx {

// The analysis a Searcher makes, without evaluating anything.
QueryFeatures query_features(const Searcher& searcher, std::string_view text, const SearchOptions& options,
                             Analyzer& analyzer);

// The processors over a Searcher: CPU workers run Searcher::search with
// their own Analyzer; the GPU runs each batch with Searcher::search_gpu_batch
// (few launches and one synchronization per batch).
// with_gpu false: no GPU processor.
QueryProcessors searcher_processors(const Searcher& searcher, const SearchOptions& options, size_t cpu_workers,
                                    bool with_gpu);

// A whole list of queries that all arrive at once (`invidx search --device
// auto --queries FILE`): no deadlines, results in input order. The first
// error in input order is rethrown after every query has run.
std::vector<SearchResult> search_scheduled(const Searcher& searcher, std::span<const std::string> texts,
                                           const SearchOptions& options, size_t cpu_workers, bool with_gpu);

}  // namespace invidx
