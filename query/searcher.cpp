#include "query/searcher.hpp"

#include <algorithm>
#include <memory>

#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include "query/block_cursor.hpp"
#include "query/block_max_wand.hpp"
#include "query/daat_and.hpp"
#include "query/exhaustive_or.hpp"
#include "query/gpu_search.hpp"
#include "query/impact_block_cursor.hpp"
#include "query/impact_maxscore_or.hpp"
#include "query/impact_taat_or.hpp"
#include "query/maxscore_or.hpp"
#include "query/phrase_query.hpp"
#include "query/phrase_search.hpp"
#include "query/posting_cursor.hpp"
#include "query/query_error.hpp"

namespace invidx {

Searcher::Searcher(const IndexReader& index, Bm25Parameters parameters)
    : index_(index), bm25_(parameters, index.num_documents(), index.average_length()), norms_(index.num_documents()) {
    oneapi::tbb::parallel_for(uint64_t{0}, index.num_documents(), [&](uint64_t docid) {
        norms_[docid] = bm25_.length_norm(index_.document_length(static_cast<uint32_t>(docid)));
    });
    if (QueryPostings::present(index_)) query_postings_.emplace(index_);
    gpu_ = std::make_unique<GpuSearch>(*this, norms_);
}

Searcher::~Searcher() = default;

void Searcher::check_impacts() const {
    if (!query_postings_ || !query_postings_->has_impacts()) {
        throw QueryError("index " + index_.directory().string() + " has no impacts for --scoring impact; compute them first: invidx weight " +
                         index_.directory().string() + (query_postings_ ? "" : " (after invidx merge --layout query)"));
    }
}

std::vector<SearchResult> Searcher::search_gpu_batch(std::span<const std::string> texts, const SearchOptions& options) const {
    if (options.scoring == QueryScoring::kImpact) check_impacts();
    return gpu_->search_batch(texts, options);
}

size_t Searcher::max_gpu_batch(const SearchOptions& options) const { return gpu_->max_batch(options); }

GpuQueryStats Searcher::gpu_stats() const { return gpu_->stats(); }

SearchResult Searcher::search(std::string_view text, const SearchOptions& options) const {
    Analyzer analyzer(index_.analysis());
    return search(text, options, analyzer);
}

SearchResult Searcher::search(std::string_view text, const SearchOptions& options, Analyzer& analyzer) const {
    if (options.mode == QueryMode::kAndOr) {
        SearchOptions conjunctive = options;
        conjunctive.mode = QueryMode::kAnd;
        SearchResult first = search(text, conjunctive, analyzer);
        if (first.hits.size() >= options.k) return first;
        SearchOptions disjunctive = options;
        disjunctive.mode = QueryMode::kOr;
        SearchResult second = search(text, disjunctive, analyzer);
        second.stats += first.stats;
        return second;
    }
    SearchResult result;
    result.answered_as = options.mode;
    // '"' separates tokens, so the whole text gives every term, phrase words included.
    result.terms = query_terms(analyzer, index_, text);
    const auto phrases = query_phrases(analyzer, text);
    if (!phrases.empty() && !index_.positional()) {
        throw QueryError("phrase \"" + phrases.front().text + "\" needs positions, but index " +
                         index_.directory().string() +
                         " was built without them; rebuild it with positions: invidx-run PIPELINE.json --set positions=true");
    }
    const bool impacts = options.scoring == QueryScoring::kImpact;
    if (impacts) {
        check_impacts();  // refused before anything is evaluated, whatever the query's terms
        if (!phrases.empty()) throw QueryError("phrase queries score by BM25 only: use --scoring bm25");
    }
    const bool conjunctive = options.mode == QueryMode::kAnd;
    // No term left (stop words only), or AND with a term no document has.
    if (result.terms.count_in_index() == 0 || (conjunctive && !result.terms.all_in_index())) return result;
    if (impacts && options.device != QueryDevice::kGpu) {
        search_impacts(*query_postings_, options, result);
        return result;
    }
    if (options.device == QueryDevice::kGpu) {
        if (!phrases.empty()) throw QueryError("phrase queries run on the CPU only: use --device cpu");
        gpu_->search(options, result);
        return result;
    }
    if (!phrases.empty()) {
        // Positions live in the run files only, whatever the layout.
        result.hits = phrase_search(index_, result.terms, phrases, conjunctive, bm25_, norms_, options.k, &result.stats);
        return result;
    }

    // Block maxima hold the exact tf part for the parameters they were made with.
    const QueryPostings* layout = query_layout(options);
    const bool block_maxima = layout && layout->parameters().k1 == bm25_.parameters().k1 &&
                              layout->parameters().b == bm25_.parameters().b;
    const bool exhaustive = options.algorithm == Algorithm::kExhaustive;
    if (layout && !exhaustive && (conjunctive || block_maxima)) {
        search_blocks(*layout, options, result);
        return result;
    }

    // The run files' path: each present term's list decoded whole, once; lists in query order.
    std::vector<run_list::DecodedList> decoded;
    decoded.reserve(result.terms.terms.size());
    std::vector<ScoredList> lists;
    lists.reserve(result.terms.terms.size());
    for (const auto& term : result.terms.terms) {
        if (!term.index) continue;  // OR: contributes nothing
        // On the query layout here: exhaustive OR, or block maxima made with other k1, b.
        decoded.push_back(layout ? layout->list(*term.index).decode() : index_.postings(*term.index));
        const auto& postings = decoded.back();
        ScoredList list{.docids = postings.docids, .tfs = postings.tfs, .idf = bm25_.idf(term.df), .max_score = 0.0};
        if (!conjunctive && !exhaustive) {
            // The bound MaxScore needs, exact for this list (not an estimate).
            double best = 0.0;
            for (size_t i = 0; i < postings.docids.size(); ++i) best = std::max(best, bm25_.tf_part(postings.tfs[i], norms_[postings.docids[i]]));
            list.max_score = list.idf * best;
        }
        lists.push_back(list);
    }
    if (conjunctive) {
        result.hits = daat_and(lists, norms_, bm25_, options.k, &result.stats);
    } else if (exhaustive) {
        result.hits = exhaustive_or(lists, norms_, bm25_, options.k, &result.stats);
    } else {
        result.hits = maxscore_or(lists, norms_, bm25_, options.k, &result.stats);
    }
    return result;
}

void Searcher::search_blocks(const QueryPostings& layout, const SearchOptions& options, SearchResult& result) const {
    // Skip entries and block maxima are read as the cursors go; a block is
    // decoded only when a cursor stops in it (query/block_cursor.hpp). OR:
    // block-max MaxScore (maxscore_or over BlockCursors); Block-Max WAND on request (slower on the benchmark
    // collections, docs/PERFORMANCE.md "Query latency").
    std::vector<QueryList> lists;
    lists.reserve(result.terms.terms.size());  // the cursors point into it
    std::vector<BlockCursor> cursors;
    cursors.reserve(result.terms.terms.size());
    for (const auto& term : result.terms.terms) {
        if (!term.index) continue;  // OR: contributes nothing
        lists.push_back(layout.list(*term.index));
        cursors.emplace_back(lists.back(), bm25_.idf(term.df));
    }
    if (options.mode == QueryMode::kAnd) {
        result.hits = daat_and(std::span<BlockCursor>(cursors), norms_, bm25_, options.k, &result.stats);
    } else if (options.algorithm == Algorithm::kBlockMaxWand) {
        result.hits = block_max_wand(cursors, norms_, bm25_, options.k, &result.stats);
    } else {
        result.hits = maxscore_or(std::span<BlockCursor>(cursors), norms_, bm25_, options.k, &result.stats);
    }
}

void Searcher::search_impacts(const QueryPostings& layout, const SearchOptions& options, SearchResult& result) const {
    std::vector<QueryList> lists;
    lists.reserve(result.terms.terms.size());  // the cursors point into it
    std::vector<const QueryList*> in_query_order;
    for (const auto& term : result.terms.terms) {
        if (!term.index) continue;  // OR: contributes nothing
        lists.push_back(layout.list(*term.index));
        in_query_order.push_back(&lists.back());
    }
    // OR over lists that cover much of the collection: accumulator windows
    // (query/impact_taat_or.hpp); otherwise document at a time.
    if (options.mode != QueryMode::kAnd && impact_taat_suits(in_query_order, index_.num_documents())) {
        result.hits = impact_taat_or(in_query_order, options.k, &result.stats);
        return;
    }
    std::vector<ImpactBlockCursor> cursors(lists.begin(), lists.end());
    if (options.mode == QueryMode::kAnd) {
        result.hits = daat_and(std::span<ImpactBlockCursor>(cursors), norms_, bm25_, options.k, &result.stats);
    } else {
        result.hits = impact_maxscore_or(cursors, options.k, &result.stats);
    }
}

std::vector<SearchResult> Searcher::search_all(std::span<const std::string> texts, const SearchOptions& options) const {
    std::vector<SearchResult> results(texts.size());
    // Analyzers own a stemmer and scratch tables: one per thread, made on first use.
    oneapi::tbb::enumerable_thread_specific<std::unique_ptr<Analyzer>> analyzers;
    oneapi::tbb::parallel_for(size_t{0}, texts.size(), [&](size_t i) {
        auto& analyzer = analyzers.local();
        if (!analyzer) analyzer = std::make_unique<Analyzer>(index_.analysis());
        results[i] = search(texts[i], options, *analyzer);
    });
    return results;
}

}  // namespace invidx
