// Ranked retrieval over an IndexReader (CONTENT.md §10): a plan maker and the
// evaluators of its devices. Each query is analyzed once into a QueryPlan
// (query/query_plan.hpp: terms, weights, phrases, mode, k, scoring), which
// the evaluator of SearchOptions::device answers: the CPU's always
// (query/cpu_evaluator.hpp), the GPU's when the Searcher was made with
// GpuOptions (query/gpu_evaluator.hpp), each behind AndOrFallback for
// `--mode and-or`. The results are the same on every path and device:
// exactly the exhaustive top k. A query that cannot run is a QueryError.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analyzer.hpp"
#include "devices/gpu_query.hpp"
#include "query/analyzer_pool.hpp"
#include "query/and_or_fallback.hpp"
#include "query/cpu_evaluator.hpp"
#include "query/gpu_options.hpp"
#include "query/query_evaluator.hpp"
#include "query/query_plan.hpp"
#include "query/scored_index.hpp"
#include "query/search_attempt.hpp"
#include "query/search_options.hpp"
#include "query/search_result.hpp"
#include "store/bm25.hpp"
#include "store/index_reader.hpp"
#include "store/query_postings.hpp"

namespace invidx {

class GpuEvaluator;

class Searcher {
public:
    // Reads every document's length once (the BM25 length norms). `gpu`:
    // also answer SearchOptions::device kGpu on that GPU (its device state
    // is made on the first GPU query); none: a CPU-only Searcher, which
    // holds no GPU state at all.
    explicit Searcher(const IndexReader& index, Bm25Parameters parameters = {},
                      std::optional<GpuOptions> gpu = std::nullopt);
    ~Searcher();
    Searcher(const Searcher&) = delete;
    Searcher& operator=(const Searcher&) = delete;

    const IndexReader& index() const { return scored_.reader(); }
    const Bm25& bm25() const { return scored_.bm25(); }
    std::span<const double> length_norms() const { return scored_.length_norms(); }
    // The query-ready layout, when the index has one.
    const QueryPostings* query_postings() const { return scored_.query_postings(); }
    // The query layout the options read lists from: none for kMaxscore (the
    // run files) or when the index has none.
    const QueryPostings* query_layout(const SearchOptions& options) const { return scored_.layout_for(options.algorithm); }
    bool has_gpu() const { return gpu_ != nullptr; }

    // One query analyzed and checked against the index (QueryError if it
    // cannot run on any device); `analyzer` must use the index's analysis
    // settings.
    QueryPlan plan(std::string_view text, const SearchOptions& options, Analyzer& analyzer) const;
    // Many queries planned on all threads, in input order (impact scoring:
    // the index's impacts are checked once, first).
    std::vector<QueryPlan> plan_batch(std::span<const std::string> texts, const SearchOptions& options) const;
    // The evaluator of a device, and-or included; kGpu on a CPU-only
    // Searcher is a QueryError.
    const QueryEvaluator& evaluator(QueryDevice device) const;

    // One query; `analyzer` must use the index's analysis settings (one per thread).
    SearchResult search(std::string_view text, const SearchOptions& options, Analyzer& analyzer) const;
    SearchResult search(std::string_view text, const SearchOptions& options) const;

    // Many queries on all threads (oneTBB); results in input order. The
    // first QueryError stops the batch.
    std::vector<SearchResult> search_all(std::span<const std::string> texts, const SearchOptions& options) const;
    // The same, but a query that cannot run (a QueryError) is kept in its
    // attempt and the others are answered. What fails every query alike
    // (kGpu without a GPU, impact scoring on an index without impacts) is
    // still thrown, once, before any query runs.
    std::vector<SearchAttempt> search_each(std::span<const std::string> texts, const SearchOptions& options) const;

    // Many queries on the GPU (options.device is taken to be kGpu): planned
    // on all threads, then answered in batches of up to max_gpu_batch()
    // queries, each batch with few kernel launches and one synchronization;
    // results in input order, the same as search() gives each (hits,
    // scores, ties, and for kAndOr answered_as: an AND batch, then an OR
    // batch of those with fewer than k). A phrase is a QueryError.
    std::vector<SearchResult> search_gpu_batch(std::span<const std::string> texts, const SearchOptions& options) const;
    size_t max_gpu_batch() const;
    // The GPU's list cache and counters (empty before the first GPU query or
    // without a GPU).
    GpuQueryStats gpu_stats() const;

private:
    const GpuEvaluator& gpu() const;  // QueryError on a CPU-only Searcher

    ScoredIndex scored_;
    CpuEvaluator cpu_;
    AndOrFallback cpu_and_or_;
    std::unique_ptr<GpuEvaluator> gpu_;  // none: CPU only
    std::unique_ptr<AndOrFallback> gpu_and_or_;
    mutable AnalyzerPool analyzers_;  // plan_batch's
};

}  // namespace invidx
