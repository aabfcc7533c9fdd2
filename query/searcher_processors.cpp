#include "query/searcher_processors.hpp"

#include <algorithm>
#include <exception>
#include <memory>
#include <optional>
#include <utility>

#include "query/phrase_query.hpp"
#include "query/query_error.hpp"
#include "query/query_syntax.hpp"
#include "query/vector_query.hpp"

namespace invidx {

QueryFeatures query_features(const Searcher& searcher, std::string_view text, const SearchOptions& options,
                             Analyzer& analyzer) {
    QueryFeatures features;
    features.mode = options.mode;
    features.k = options.k;
    QueryTerms terms;
    try {
        if (is_vector_query(text)) {
            for (const auto& weighted : parse_term_vector(text)) terms.terms.push_back(look_up_term(searcher.index(), weighted.term));
        } else {
            // Phrases and required or prohibited clauses run on the CPU only.
            features.phrase = !query_phrases(analyzer, text).empty() || has_boolean_syntax(text);
            terms = query_terms(analyzer, searcher.index(), text);
        }
    } catch (const QueryError&) {
        // Malformed syntax: Searcher::search throws the same error, so
        // send the query to the CPU, where it is reported for this query.
        features.phrase = true;
    }
    for (const auto& term : terms.terms) {
        if (!term.index) continue;
        ++features.terms;
        features.postings += term.df;
        features.shortest = features.terms == 1 ? term.df : std::min(features.shortest, term.df);
    }
    features.runs_at_all = features.terms > 0 && (options.mode != QueryMode::kAnd || terms.all_in_index());
    return features;
}

QueryProcessors searcher_processors(const Searcher& searcher, const SearchOptions& options, size_t cpu_workers, bool with_gpu) {
    QueryProcessors processors;
    // Analyzers own a stemmer and scratch tables: one per worker, made on first use.
    auto analyzers = std::make_shared<std::vector<std::unique_ptr<Analyzer>>>(std::max<size_t>(cpu_workers, 1));
    processors.cpu = [&searcher, &cpu = searcher.evaluator(QueryDevice::kCpu), analyzers, options](const QueryJob& job,
                                                                                                  size_t worker) {
        auto& analyzer = analyzers->at(worker);
        if (!analyzer) analyzer = std::make_unique<Analyzer>(searcher.index().analysis());
        return cpu.evaluate(searcher.plan(job.text, options, *analyzer));
    };
    if (!with_gpu) return processors;
    // One launch sequence and one synchronization for the whole batch.
    processors.gpu = [&searcher, &gpu = searcher.evaluator(QueryDevice::kGpu), options](std::span<const QueryJob* const> batch) {
        std::vector<std::string> texts;
        texts.reserve(batch.size());
        for (const QueryJob* job : batch) texts.push_back(job->text);
        return gpu.evaluate_batch(searcher.plan_batch(texts, options));
    };
    return processors;
}

std::vector<SearchAttempt> search_scheduled_each(const Searcher& searcher, std::span<const std::string> texts,
                                                 const SearchOptions& options, size_t cpu_workers, bool with_gpu) {
    QueryCostModel model;
    SchedulerOptions scheduling;
    scheduling.cpu_workers = cpu_workers;
    scheduling.deadline = std::nullopt;  // every query arrives at once: throughput, not deadlines
    if (with_gpu) scheduling.max_gpu_batch = searcher.max_gpu_batch();
    QueryScheduler scheduler(searcher_processors(searcher, options, cpu_workers, with_gpu), model, scheduling);
    Analyzer analyzer(searcher.index().analysis());
    for (const auto& text : texts) scheduler.submit(text, query_features(searcher, text, options, analyzer));
    auto outcomes = scheduler.finish();
    std::vector<SearchAttempt> attempts(outcomes.size());
    for (size_t i = 0; i < outcomes.size(); ++i) {
        if (!outcomes[i].error) {
            attempts[i].result = std::move(outcomes[i].result);
            continue;
        }
        try {
            std::rethrow_exception(outcomes[i].error);
        } catch (const QueryError& error) {
            attempts[i].error = error.what();
        }
    }
    return attempts;
}

std::vector<SearchResult> search_scheduled(const Searcher& searcher, std::span<const std::string> texts,
                                           const SearchOptions& options, size_t cpu_workers, bool with_gpu) {
    auto attempts = search_scheduled_each(searcher, texts, options, cpu_workers, with_gpu);
    std::vector<SearchResult> results;
    results.reserve(attempts.size());
    for (auto& attempt : attempts) {
        if (attempt.error) throw QueryError(*attempt.error);
        results.push_back(std::move(attempt.result));
    }
    return results;
}

}  // namespace invidx
