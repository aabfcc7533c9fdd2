#include "query/searcher.hpp"

#include <algorithm>
#include <memory>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include "query/block_cursor.hpp"
#include "query/block_max_wand.hpp"
#include "query/daat_and.hpp"
#include "query/exhaustive_or.hpp"
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
}

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
    const bool conjunctive = options.mode == QueryMode::kAnd;
    // No term left (stop words only), or AND with a term no document has.
    if (result.terms.count_in_index() == 0 || (conjunctive && !result.terms.all_in_index())) return result;
    if (options.gpu) {
        if (!phrases.empty()) throw QueryError("phrase queries run on the CPU only: use --device cpu");
        search_gpu(options, result);
        return result;
    }
    if (!phrases.empty()) {
        // Positions live in the run files only, whatever the layout.
        result.hits = phrase_search(index_, result.terms, phrases, conjunctive, bm25_, norms_, options.k, &result.stats);
        return result;
    }

    // Block maxima hold the exact tf part for the parameters they were made with.
    const QueryPostings* layout = options.use_query_layout && query_postings_ ? &*query_postings_ : nullptr;
    const bool block_maxima = layout && layout->parameters().k1 == bm25_.parameters().k1 &&
                              layout->parameters().b == bm25_.parameters().b;
    if (layout && !options.exhaustive && (conjunctive || block_maxima)) {
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
        if (!conjunctive && !options.exhaustive) {
            // The bound MaxScore needs, exact for this list (not an estimate).
            double best = 0.0;
            for (size_t i = 0; i < postings.docids.size(); ++i) best = std::max(best, bm25_.tf_part(postings.tfs[i], norms_[postings.docids[i]]));
            list.max_score = list.idf * best;
        }
        lists.push_back(list);
    }
    if (conjunctive) {
        result.hits = daat_and(lists, norms_, bm25_, options.k, &result.stats);
    } else if (options.exhaustive) {
        result.hits = exhaustive_or(lists, norms_, bm25_, options.k, &result.stats);
    } else {
        result.hits = maxscore_or(lists, norms_, bm25_, options.k, &result.stats);
    }
    return result;
}

namespace {

// A query.post list as bp128 blocks for the device, which decodes them per
// query. Checked here once, on the host (the device trusts its bytes).
GpuList bp128_blocks(const QueryList& list) {
    (void)list.decode();  // every block's bytes, gaps, last docids, df and cf: FormatError if damaged
    GpuList out;
    out.bp128 = true;
    out.postings = list.df();
    for (const QueryBlock& block : list.blocks()) {
        out.docid_starts.push_back(static_cast<uint32_t>(out.bytes.size()));
        out.bytes.append(block.docid_bytes);
        out.tf_starts.push_back(static_cast<uint32_t>(out.bytes.size()));
        out.bytes.append(block.tf_bytes);
        out.last_docids.push_back(block.last_docid);
    }
    if (out.bytes.size() >= (size_t{1} << 32)) throw Error("a list too large for the GPU query path");
    return out;
}

void take_gpu_result(GpuQueryResult&& gpu, SearchResult& result) {
    result.hits.reserve(gpu.hits.size());
    for (const auto& [docid, score] : gpu.hits) result.hits.push_back(ScoredDocument{docid, score});
    for (const auto& term : result.terms.terms) result.stats.postings += term.index ? term.df : 0;
    result.stats.documents_considered += gpu.candidates;
    result.stats.documents_scored += gpu.matches;
    result.stats.blocks += gpu.blocks;
    result.stats.docid_blocks_decoded += gpu.blocks_decoded;  // docids and tfs are decoded together
    result.stats.tf_blocks_decoded += gpu.blocks_decoded;
}

}  // namespace

GpuQuery Searcher::gpu_query(const SearchResult& result, const SearchOptions& options) const {
    const QueryPostings* layout = options.use_query_layout && query_postings_ ? &*query_postings_ : nullptr;
    // bp128 lists stay compressed on the device; other codecs and run files are decoded here.
    const bool compressed = layout && layout->codec().name == "bp128";
    GpuQuery terms;
    for (const auto& term : result.terms.terms) {
        if (!term.index) continue;  // OR: contributes nothing
        const uint64_t index = *term.index;
        terms.push_back(GpuQueryTerm{index, bm25_.idf(term.df), term.df, [this, layout, compressed, index](GpuList& list) {
                                         if (compressed) {
                                             list = bp128_blocks(layout->list(index));
                                             return;
                                         }
                                         run_list::DecodedList decoded =
                                             layout ? layout->list(index).decode() : index_.postings(index);
                                         list.docids = std::move(decoded.docids);
                                         list.tfs = std::move(decoded.tfs);
                                     }});
    }
    return terms;
}

GpuQueryProcessor& Searcher::gpu_processor(const SearchOptions& options) const {
    if (!gpu_) gpu_ = create_gpu_query_processor(0, norms_, bm25_.parameters().k1, options.gpu_cache_bytes);
    return *gpu_;
}

void Searcher::search_gpu(const SearchOptions& options, SearchResult& result) const {
    const GpuQuery query = gpu_query(result, options);
    GpuQueryResult top;
    {
        std::lock_guard lock(gpu_mutex_);
        try {
            top = gpu_processor(options).top_k(query, options.mode == QueryMode::kAnd, options.k);
        } catch (const QueryError&) {
            throw;
        } catch (const std::exception& error) {  // the device failed (an invidx::Error naming it)
            throw QueryError(std::string("GPU query processing failed: ") + error.what());
        }
    }
    take_gpu_result(std::move(top), result);
}

size_t Searcher::max_gpu_batch(const SearchOptions& options) const {
    std::lock_guard lock(gpu_mutex_);
    try {
        return gpu_processor(options).max_batch();
    } catch (const QueryError&) {
        throw;
    } catch (const std::exception& error) {  // the device failed (an invidx::Error naming it)
        throw QueryError(std::string("GPU query processing failed: ") + error.what());
    }
}

GpuQueryStats Searcher::gpu_stats() const {
    std::lock_guard lock(gpu_mutex_);
    return gpu_ ? gpu_->stats() : GpuQueryStats{};
}

std::vector<SearchResult> Searcher::search_gpu_batch(std::span<const std::string> texts, const SearchOptions& options) const {
    if (options.mode == QueryMode::kAndOr) {
        // AND for all; OR for those AND left with fewer than k hits.
        SearchOptions conjunctive = options;
        conjunctive.mode = QueryMode::kAnd;
        auto results = search_gpu_batch(texts, conjunctive);
        std::vector<std::string> again;
        std::vector<size_t> where;
        for (size_t i = 0; i < results.size(); ++i) {
            if (results[i].hits.size() < options.k) {
                again.push_back(texts[i]);
                where.push_back(i);
            }
        }
        SearchOptions disjunctive = options;
        disjunctive.mode = QueryMode::kOr;
        auto second = search_gpu_batch(again, disjunctive);
        for (size_t j = 0; j < where.size(); ++j) {
            second[j].stats += results[where[j]].stats;
            results[where[j]] = std::move(second[j]);
        }
        return results;
    }
    const bool conjunctive = options.mode == QueryMode::kAnd;
    std::vector<SearchResult> results(texts.size());
    std::vector<char> has_phrase(texts.size(), 0);
    // Ranges of 256 queries, each with an analyzer from the spares. A batch of
    // up to 256 (the scheduler's) is analyzed on this thread (a few µs a
    // query): waiting for a oneTBB worker while CPU query workers hold every
    // core stalled the GPU for far longer than that.
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<size_t>(0, texts.size(), 256), [&](const auto& range) {
        std::unique_ptr<Analyzer> analyzer;
        {
            std::lock_guard lock(spare_analyzers_mutex_);
            if (!spare_analyzers_.empty()) {
                analyzer = std::move(spare_analyzers_.back());
                spare_analyzers_.pop_back();
            }
        }
        if (!analyzer) analyzer = std::make_unique<Analyzer>(index_.analysis());
        for (size_t i = range.begin(); i != range.end(); ++i) {
            results[i].answered_as = options.mode;
            results[i].terms = query_terms(*analyzer, index_, texts[i]);
            has_phrase[i] = !query_phrases(*analyzer, texts[i]).empty();
        }
        std::lock_guard lock(spare_analyzers_mutex_);
        spare_analyzers_.push_back(std::move(analyzer));
    });
    std::vector<GpuQuery> queries;
    std::vector<size_t> asked;  // which result each query fills
    for (size_t i = 0; i < texts.size(); ++i) {
        if (has_phrase[i]) throw QueryError("phrase queries run on the CPU only: use --device cpu");
        const QueryTerms& terms = results[i].terms;
        // No term left (stop words only), or AND with a term no document has: no results, as search() gives.
        if (terms.count_in_index() == 0 || (conjunctive && !terms.all_in_index())) continue;
        queries.push_back(gpu_query(results[i], options));
        asked.push_back(i);
    }
    if (queries.empty()) return results;
    std::vector<GpuQueryResult> answers;
    {
        std::lock_guard lock(gpu_mutex_);
        try {
            answers = gpu_processor(options).top_k_batch(queries, conjunctive, options.k);
        } catch (const QueryError&) {
            throw;
        } catch (const std::exception& error) {  // the device failed (an invidx::Error naming it)
            throw QueryError(std::string("GPU query processing failed: ") + error.what());
        }
    }
    for (size_t j = 0; j < asked.size(); ++j) take_gpu_result(std::move(answers[j]), results[asked[j]]);
    return results;
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
    } else if (options.block_max_wand) {
        result.hits = block_max_wand(cursors, norms_, bm25_, options.k, &result.stats);
    } else {
        result.hits = maxscore_or(std::span<BlockCursor>(cursors), norms_, bm25_, options.k, &result.stats);
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
