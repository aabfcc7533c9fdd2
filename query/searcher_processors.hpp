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

// The processors over a Searcher, each a plan maker and a device's evaluator
// (query/query_evaluator.hpp, and-or included): CPU workers plan with their
// own Analyzer and evaluate on the CPU; the GPU plans each batch on all
// threads and evaluates it at once (few launches and one synchronization).
// with_gpu false: no GPU processor; true needs a Searcher made with a GPU.
QueryProcessors searcher_processors(const Searcher& searcher, const SearchOptions& options, size_t cpu_workers,
                                    bool with_gpu);

// A whole list of queries that all arrive at once (`invidx search --device
// auto --queries FILE`): no deadlines, results in input order. The first
// error in input order is rethrown after every query has run.
std::vector<SearchResult> search_scheduled(const Searcher& searcher, std::span<const std::string> texts,
                                           const SearchOptions& options, size_t cpu_workers, bool with_gpu);
// The same, but a query that cannot run (a QueryError) is kept in its
// attempt and the others are answered; any other error is rethrown (the
// first in input order).
std::vector<SearchAttempt> search_scheduled_each(const Searcher& searcher, std::span<const std::string> texts,
                                                 const SearchOptions& options, size_t cpu_workers, bool with_gpu);

}  // namespace invidx
