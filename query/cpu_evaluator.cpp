#include "query/cpu_evaluator.hpp"

#include <algorithm>
#include <span>
#include <vector>

#include "query/block_cursor.hpp"
#include "query/boolean_search.hpp"
#include "query/clause_tree_search.hpp"
#include "query/block_max_wand.hpp"
#include "query/daat_and.hpp"
#include "query/exhaustive_or.hpp"
#include "query/impact_block_cursor.hpp"
#include "query/impact_maxscore_or.hpp"
#include "query/impact_taat_or.hpp"
#include "query/impact_weights.hpp"
#include "query/maxscore_or.hpp"
#include "query/phrase_search.hpp"
#include "query/posting_cursor.hpp"

namespace invidx {

namespace {

// The BM25 a plan scores by (a plan made by hand has none: the index's).
const Bm25Weighting& weighting_of(const QueryPlan& plan, const ScoredIndex& index) {
    return plan.bm25 ? *plan.bm25 : *index.default_weighting();
}

}  // namespace

SearchResult CpuEvaluator::evaluate(const QueryPlan& plan) const {
    SearchResult result = unevaluated_result(plan);
    if (plan.matches_nothing()) return result;
    switch (path_for(plan)) {
        case Path::kBoolean: result.hits = boolean_search(plan, index_, weighting_of(plan, index_), &result.stats); break;
        case Path::kClauseTree:
            result.hits = clause_tree_search(plan, index_, weighting_of(plan, index_), &result.stats);
            break;
        case Path::kImpacts: evaluate_impacts(plan, result); break;
        case Path::kPhrases: evaluate_phrases(plan, result); break;
        case Path::kBlocks: evaluate_blocks(plan, result); break;
        case Path::kWholeLists: evaluate_whole_lists(plan, result); break;
    }
    return result;
}

CpuEvaluator::Path CpuEvaluator::path_for(const QueryPlan& plan) const {
    if (plan.clause_tree) return Path::kClauseTree;
    // Phrases apply roles themselves (query/phrase_search.hpp).
    if (plan.has_boolean_clauses() && !plan.has_phrases()) return Path::kBoolean;
    if (plan.scores_impacts()) return Path::kImpacts;
    // Positions live in the run files only, whatever the layout.
    if (plan.has_phrases()) return Path::kPhrases;
    const bool exhaustive = plan.algorithm == Algorithm::kExhaustive;
    // Block maxima made with another k1, b are replaced by valid ones (evaluate_blocks).
    return index_.layout_for(plan.algorithm) && !exhaustive ? Path::kBlocks : Path::kWholeLists;
}

void CpuEvaluator::evaluate_impacts(const QueryPlan& plan, SearchResult& result) const {
    const QueryPostings& layout = *index_.query_postings();  // check_query_plan saw its impacts
    // Integer query weights (query/impact_weights.hpp): scores are integer
    // sums of impact · weight, divided by 2^scale_bits at the end.
    const ImpactWeights weights = impact_weights(plan, layout.impact_bits());
    std::vector<QueryList> lists;
    lists.reserve(plan.terms.terms.size());  // the cursors point into it
    std::vector<const QueryList*> in_query_order;
    std::vector<uint64_t> list_weights;
    for (size_t i = 0; i < plan.terms.terms.size(); ++i) {
        const QueryTerm& term = plan.terms.terms[i];
        if (!term.index) continue;  // OR: contributes nothing
        // OR: a weight of 0 adds nothing and matches nothing; AND: the term must still match.
        if (weights.by_term[i] == 0 && !plan.conjunctive()) continue;
        lists.push_back(layout.list(*term.index));
        in_query_order.push_back(&lists.back());
        list_weights.push_back(weights.by_term[i]);
    }
    // OR over lists that cover much of the collection: accumulator windows
    // (query/impact_taat_or.hpp); otherwise document at a time.
    if (!plan.conjunctive() && impact_taat_suits(in_query_order, list_weights, index_.reader().num_documents())) {
        result.hits = impact_taat_or(in_query_order, list_weights, plan.k, &result.stats);
    } else {
        std::vector<ImpactBlockCursor> cursors;
        cursors.reserve(lists.size());
        for (size_t j = 0; j < lists.size(); ++j) cursors.emplace_back(lists[j], list_weights[j]);
        if (plan.conjunctive()) {
            result.hits = daat_and(std::span<ImpactBlockCursor>(cursors), index_.length_norms(), index_.bm25(), plan.k,
                                   &result.stats);
        } else {
            result.hits = impact_maxscore_or(cursors, plan.k, &result.stats);
        }
    }
    for (ScoredDocument& hit : result.hits) hit.score = weights.score(hit.score);
}

void CpuEvaluator::evaluate_phrases(const QueryPlan& plan, SearchResult& result) const {
    const Bm25Weighting& bm25 = weighting_of(plan, index_);
    result.hits = phrase_search(index_.reader(), plan.terms, plan.weights, plan.roles, plan.phrases, plan.conjunctive(), bm25.bm25(),
                                bm25.length_norms(), plan.k, &result.stats);
}

void CpuEvaluator::evaluate_blocks(const QueryPlan& plan, SearchResult& result) const {
    // Skip entries and block maxima are read as the cursors go; a block is
    // decoded only when a cursor stops in it (query/block_cursor.hpp). OR:
    // block-max MaxScore (maxscore_or over BlockCursors); Block-Max WAND on
    // request (slower on the benchmark collections, docs/PERFORMANCE.md,
    // "Query latency on the CPU").
    //
    // Stored block maxima made with another k1 and b bound nothing here
    // (query/bm25_weighting.hpp): OR, which prunes by them throughout, takes
    // each block's exact maximum for this BM25 (computed on a term's first
    // use, then kept); AND, which only skips candidates by them, takes bounds
    // that cost no decoding unless the exact ones are already there.
    const QueryPostings& layout = *index_.layout_for(plan.algorithm);
    const Bm25Weighting& bm25 = weighting_of(plan, index_);
    std::vector<QueryList> lists;
    lists.reserve(plan.terms.terms.size());  // the cursors point into it
    std::vector<BlockCursor> cursors;
    cursors.reserve(plan.terms.terms.size());
    for (size_t i = 0; i < plan.terms.terms.size(); ++i) {
        const QueryTerm& term = plan.terms.terms[i];
        if (!term.index) continue;  // OR: contributes nothing
        lists.push_back(layout.list(*term.index));
        std::shared_ptr<const BlockMaxima> maxima;  // null: the stored ones fit
        if (!bm25.stored_maxima_fit()) {
            maxima = plan.conjunctive() ? bm25.cheap_maxima(*term.index, lists.back())
                                        : bm25.exact_maxima(*term.index, lists.back());
        }
        cursors.emplace_back(lists.back(), plan.weights[i], std::move(maxima));
    }
    const auto& norms = bm25.length_norms();
    if (plan.conjunctive()) {
        result.hits = daat_and(std::span<BlockCursor>(cursors), norms, bm25.bm25(), plan.k, &result.stats);
    } else if (plan.algorithm == Algorithm::kBlockMaxWand) {
        result.hits = block_max_wand(cursors, norms, bm25.bm25(), plan.k, &result.stats);
    } else {
        result.hits = maxscore_or(std::span<BlockCursor>(cursors), norms, bm25.bm25(), plan.k, &result.stats);
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
    // On the query layout here: exhaustive OR only.
    const QueryPostings* layout = index_.layout_for(plan.algorithm);
    const bool exhaustive = plan.algorithm == Algorithm::kExhaustive;
    const Bm25& bm25 = weighting_of(plan, index_).bm25();
    const auto& norms = weighting_of(plan, index_).length_norms();
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
        if (!plan.conjunctive() && !exhaustive) list.max_score = list_max_score(postings, list.idf, bm25, norms);
        lists.push_back(list);
    }
    if (plan.conjunctive()) {
        result.hits = daat_and(lists, norms, bm25, plan.k, &result.stats);
    } else if (exhaustive) {
        result.hits = exhaustive_or(lists, norms, bm25, plan.k, &result.stats);
    } else {
        result.hits = maxscore_or(lists, norms, bm25, plan.k, &result.stats);
    }
}

}  // namespace invidx
