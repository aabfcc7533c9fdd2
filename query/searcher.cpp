#include "query/searcher.hpp"

#include <algorithm>
#include <memory>

#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include "query/daat_and.hpp"
#include "query/exhaustive_or.hpp"
#include "query/maxscore_or.hpp"
#include "query/posting_cursor.hpp"

namespace invidx {

Searcher::Searcher(const IndexReader& index, Bm25Parameters parameters)
    : index_(index), bm25_(parameters, index.num_documents(), index.average_length()), norms_(index.num_documents()) {
    oneapi::tbb::parallel_for(uint64_t{0}, index.num_documents(), [&](uint64_t docid) {
        norms_[docid] = bm25_.length_norm(index_.document(static_cast<uint32_t>(docid)).length);
    });
    if (QueryPostings::present(index_)) query_postings_.emplace(index_);
}

SearchResult Searcher::search(std::string_view text, const SearchOptions& options) const {
    Analyzer analyzer(index_.analysis());
    return search(text, options, analyzer);
}

SearchResult Searcher::search(std::string_view text, const SearchOptions& options, Analyzer& analyzer) const {
    SearchResult result;
    result.terms = query_terms(analyzer, index_, text);
    const bool conjunctive = options.mode == QueryMode::kAnd;
    // No term left (stop words only), or AND with a term no document has.
    if (result.terms.count_in_index() == 0 || (conjunctive && !result.terms.all_in_index())) return result;

    // Block maxima hold the exact tf part for the parameters they were made with.
    const bool block_maxima = query_postings_ && query_postings_->parameters().k1 == bm25_.parameters().k1 &&
                              query_postings_->parameters().b == bm25_.parameters().b;

    // Each present term's list, decoded once; lists in query order.
    std::vector<vbyte::DecodedList> decoded;
    decoded.reserve(result.terms.terms.size());
    std::vector<ScoredList> lists;
    lists.reserve(result.terms.terms.size());
    for (const auto& term : result.terms.terms) {
        if (!term.index) continue;  // OR: contributes nothing
        std::optional<QueryList> blocks;
        if (query_postings_) {
            blocks = query_postings_->list(*term.index);
            decoded.push_back(blocks->decode());
        } else {
            decoded.push_back(index_.postings(*term.index));
        }
        const auto& postings = decoded.back();
        ScoredList list{.docids = postings.docids, .tfs = postings.tfs, .idf = bm25_.idf(term.df), .max_score = 0.0};
        if (!conjunctive && !options.exhaustive && block_maxima) {
            list.max_score = list.idf * blocks->max_tf_part();  // the same maximum, read instead of computed
        } else if (!conjunctive && !options.exhaustive) {
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
