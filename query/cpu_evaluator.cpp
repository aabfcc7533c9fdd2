#include "query/cpu_evaluator.hpp"

#include <algorithm>
#include <span>
#include <vector>

#include "query/block_cursor.hpp"
#include "query/block_max_wand.hpp"
#include "query/daat_and.hpp"
#include "query/exhaustive_or.hpp"
#include "query/impact_block_cursor.hpp"
#include "query/impact_maxscore_or.hpp"
#include "query/impact_taat_or.hpp"
#include "query/maxscore_or.hpp"
#include "query/phrase_search.hpp"
#include "query/posting_cursor.hpp"

namespace invidx {

SearchResult CpuEvaluator::evaluate(const QueryPlan& plan) const {
    SearchResult result = unevaluated_result(plan);
    if (plan.matches_nothing()) return result;
    switch (path_for(plan)) {
        case Path::kImpacts: evaluate_impacts(plan, result); break;
        case Path::kPhrases: evaluate_phrases(plan, result); break;
        case Path::kBlocks: evaluate_blocks(plan, result); break;
        case Path::kWholeLists: evaluate_whole_lists(plan, result); break;
    }
    return result;
}

CpuEvaluator::Path CpuEvaluator::path_for(const QueryPlan& plan) const {
    if (plan.scores_impacts()) return Path::kImpacts;
    // Positions live in the run files only, whatever the layout.
    if (plan.has_phrases()) return Path::kPhrases;
    const bool exhaustive = plan.algorithm == Algorithm::kExhaustive;
    // OR prunes by the block maxima, which bound only the BM25 they were made for.
    if (index_.layout_for(plan.algorithm) && !exhaustive && (plan.conjunctive() || index_.block_maxima_fit())) {
        return Path::kBlocks;
    }
    return Path::kWholeLists;
}

void CpuEvaluator::evaluate_impacts(const QueryPlan& plan, SearchResult& result) const {
    const QueryPostings& layout = *index_.query_postings();  // check_query_plan saw its impacts
    std::vector<QueryList> lists;
    lists.reserve(plan.terms.terms.size());  // the cursors point into it
    std::vector<const QueryList*> in_query_order;
    for (const auto& term : plan.terms.terms) {
        if (!term.index) continue;  // OR: contributes nothing
        lists.push_back(layout.list(*term.index));
        in_query_order.push_back(&lists.back());
    }
    // OR over lists that cover much of the collection: accumulator windows
    // (query/impact_taat_or.hpp); otherwise document at a time.
    if (!plan.conjunctive() && impact_taat_suits(in_query_order, index_.reader().num_documents())) {
        result.hits = impact_taat_or(in_query_order, plan.k, &result.stats);
        return;
    }
    std::vector<ImpactBlockCursor> cursors(lists.begin(), lists.end());
    if (plan.conjunctive()) {
        result.hits = daat_and(std::span<ImpactBlockCursor>(cursors), index_.length_norms(), index_.bm25(), plan.k,
                               &result.stats);
    } else {
        result.hits = impact_maxscore_or(cursors, plan.k, &result.stats);
    }
}

void CpuEvaluator::evaluate_phrases(const QueryPlan& plan, SearchResult& result) const {
    result.hits = phrase_search(index_.reader(), plan.terms, plan.phrases, plan.conjunctive(), index_.bm25(),
                                index_.length_norms(), plan.k, &result.stats);
}

void CpuEvaluator::evaluate_blocks(const QueryPlan& plan, SearchResult& result) const {
    // Skip entries and block maxima are read as the cursors go; a block is
    // decoded only when a cursor stops in it (query/block_cursor.hpp). OR:
    // block-max MaxScore (maxscore_or over BlockCursors); Block-Max WAND on
    // request (slower on the benchmark collections, docs/PERFORMANCE.md,
    // "Query latency on the CPU").
    const QueryPostings& layout = *index_.layout_for(plan.algorithm);
    std::vector<QueryList> lists;
    lists.reserve(plan.terms.terms.size());  // the cursors point into it
    std::vector<BlockCursor> cursors;
    cursors.reserve(plan.terms.terms.size());
    for (size_t i = 0; i < plan.terms.terms.size(); ++i) {
        const QueryTerm& term = plan.terms.terms[i];
        if (!term.index) continue;  // OR: contributes nothing
        lists.push_back(layout.list(*term.index));
        cursors.emplace_back(lists.back(), plan.weights[i]);
    }
    const auto& norms = index_.length_norms();
    if (plan.conjunctive()) {
        result.hits = daat_and(std::span<BlockCursor>(cursors), norms, index_.bm25(), plan.k, &result.stats);
    } else if (plan.algorithm == Algorithm::kBlockMaxWand) {
        result.hits = block_max_wand(cursors, norms, index_.bm25(), plan.k, &result.stats);
    } else {
        result.hits = maxscore_or(std::span<BlockCursor>(cursors), norms, index_.bm25(), plan.k, &result.stats);
    }
}

namespace {

// The bound MaxScore needs, exact for this list (not an estimate).
double list_max_score(const run_list::DecodedList& postings, double idf, const Bm25& bm25,
                      std::span<const double> norms) {
    double best = 0.0;
    for (size_t i = 0; i < postings.docids.size(); ++i) best = std::max(best, bm25.tf_part(postings.tfs[i], norms[postings.docids[i]]));
    return idf * best;
}

}  // namespace

void CpuEvaluator::evaluate_whole_lists(const QueryPlan& plan, SearchResult& result) const {
    // On the query layout here: exhaustive OR, or block maxima made with other k1, b.
    const QueryPostings* layout = index_.layout_for(plan.algorithm);
    const bool exhaustive = plan.algorithm == Algorithm::kExhaustive;
    const auto& norms = index_.length_norms();
    // Each present term's list decoded whole, once; lists in query order.
    std::vector<run_list::DecodedList> decoded;
    decoded.reserve(plan.terms.terms.size());  // the lists point into it
    std::vector<ScoredList> lists;
    lists.reserve(plan.terms.terms.size());
    for (size_t i = 0; i < plan.terms.terms.size(); ++i) {
        const QueryTerm& term = plan.terms.terms[i];
        if (!term.index) continue;  // OR: contributes nothing
        decoded.push_back(layout ? layout->list(*term.index).decode() : index_.reader().postings(*term.index));
        const auto& postings = decoded.back();
        ScoredList list{.docids = postings.docids, .tfs = postings.tfs, .idf = plan.weights[i], .max_score = 0.0};
        if (!plan.conjunctive() && !exhaustive) list.max_score = list_max_score(postings, list.idf, index_.bm25(), norms);
        lists.push_back(list);
    }
    if (plan.conjunctive()) {
        result.hits = daat_and(lists, norms, index_.bm25(), plan.k, &result.stats);
    } else if (exhaustive) {
        result.hits = exhaustive_or(lists, norms, index_.bm25(), plan.k, &result.stats);
    } else {
        result.hits = maxscore_or(lists, norms, index_.bm25(), plan.k, &result.stats);
    }
}

}  // namespace invidx
