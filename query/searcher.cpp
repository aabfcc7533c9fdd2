#include "query/searcher.hpp"

#include <memory>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include "query/gpu_evaluator.hpp"
#include "query/query_error.hpp"

namespace invidx {

Searcher::Searcher(const IndexReader& index, Bm25Parameters parameters, std::optional<GpuOptions> gpu)
    : scored_(index, parameters), cpu_(scored_), cpu_and_or_(cpu_), analyzers_(index.analysis()) {
    if (!gpu) return;
    gpu_ = std::make_unique<GpuEvaluator>(scored_, *gpu);
    gpu_and_or_ = std::make_unique<AndOrFallback>(*gpu_);
}

Searcher::~Searcher() = default;

const GpuEvaluator& Searcher::gpu() const {
    if (!gpu_) throw QueryError("this Searcher was made without a GPU: give it GpuOptions to search with device gpu");
    return *gpu_;
}

const QueryEvaluator& Searcher::evaluator(QueryDevice device) const {
    if (device == QueryDevice::kCpu) return cpu_and_or_;
    (void)gpu();
    return *gpu_and_or_;
}

QueryPlan Searcher::plan(std::string_view text, const SearchOptions& options, Analyzer& analyzer) const {
    return plan_query(text, options, scored_, analyzer);
}

std::vector<QueryPlan> Searcher::plan_batch(std::span<const std::string> texts, const SearchOptions& options) const {
    if (options.scoring == QueryScoring::kImpact) scored_.require_impacts();
    (void)scored_.weighting_for(options);  // bad k1, b: one error; else made once, before the threads ask
    std::vector<QueryPlan> plans(texts.size());
    // Ranges of 256 queries, each with a pooled analyzer. A batch of up to
    // 256 (the scheduler's) is analyzed on this thread (a few µs a query):
    // waiting for a oneTBB worker while CPU query workers hold every core
    // stalled the GPU for far longer than that.
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<size_t>(0, texts.size(), 256), [&](const auto& range) {
        std::unique_ptr<Analyzer> analyzer = analyzers_.take();
        for (size_t i = range.begin(); i != range.end(); ++i) plans[i] = analyze_query(texts[i], options, scored_, *analyzer);
        analyzers_.give_back(std::move(analyzer));
    });
    for (const auto& plan : plans) check_query_plan(plan, scored_);  // the first failure in input order
    return plans;
}

SearchResult Searcher::search(std::string_view text, const SearchOptions& options) const {
    Analyzer analyzer(index().analysis());
    return search(text, options, analyzer);
}

SearchResult Searcher::search(std::string_view text, const SearchOptions& options, Analyzer& analyzer) const {
    const QueryEvaluator& device = evaluator(options.device);
    return device.evaluate(plan(text, options, analyzer));
}

std::vector<SearchResult> Searcher::search_all(std::span<const std::string> texts, const SearchOptions& options) const {
    (void)scored_.weighting_for(options);  // another k1, b: its norms made once, before the threads ask
    std::vector<SearchResult> results(texts.size());
    // Analyzers own a stemmer and scratch tables: one per thread, made on first use.
    oneapi::tbb::enumerable_thread_specific<std::unique_ptr<Analyzer>> analyzers;
    oneapi::tbb::parallel_for(size_t{0}, texts.size(), [&](size_t i) {
        auto& analyzer = analyzers.local();
        if (!analyzer) analyzer = std::make_unique<Analyzer>(index().analysis());
        results[i] = search(texts[i], options, *analyzer);
    });
    return results;
}

std::vector<SearchAttempt> Searcher::search_each(std::span<const std::string> texts, const SearchOptions& options) const {
    (void)evaluator(options.device);
    if (options.scoring == QueryScoring::kImpact) scored_.require_impacts();
    (void)scored_.weighting_for(options);  // bad k1, b fail every query alike
    std::vector<SearchAttempt> attempts(texts.size());
    oneapi::tbb::enumerable_thread_specific<std::unique_ptr<Analyzer>> analyzers;
    oneapi::tbb::parallel_for(size_t{0}, texts.size(), [&](size_t i) {
        auto& analyzer = analyzers.local();
        if (!analyzer) analyzer = std::make_unique<Analyzer>(index().analysis());
        try {
            attempts[i].result = search(texts[i], options, *analyzer);
        } catch (const QueryError& error) {
            attempts[i].error = error.what();
        }
    });
    return attempts;
}

std::vector<SearchResult> Searcher::search_gpu_batch(std::span<const std::string> texts, const SearchOptions& options) const {
    const QueryEvaluator& device = evaluator(QueryDevice::kGpu);
    return device.evaluate_batch(plan_batch(texts, options));
}

size_t Searcher::max_gpu_batch() const { return gpu().max_batch(); }

GpuQueryStats Searcher::gpu_stats() const { return gpu_ ? gpu_->stats() : GpuQueryStats{}; }

}  // namespace invidx
