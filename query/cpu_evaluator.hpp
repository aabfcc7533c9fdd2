// The CPU's evaluator (CONTENT.md §10). Each plan takes one path, by its scoring,
// its phrases, the algorithm and the index's layouts:
// - a clause tree (parentheses, prohibited phrases): query/clause_tree_search.hpp;
// - impacts: sums of the query layout's quantized impacts, in integers: OR
//   by accumulator windows when the lists cover much of the collection
//   (impact_taat_or), else by integer block-max MaxScore
//   (impact_maxscore_or); AND by daat_and over ImpactBlockCursors;
// - phrases: the run files' positions (query/phrase_search.hpp);
// - blocks: on the query-ready layout (query.post), lists read block by
//   block through BlockCursors: AND by daat_and with block skipping, OR by
//   block-max MaxScore (or Block-Max WAND); block maxima made with another
//   k1 and b than the plan's are replaced by valid bounds
//   (query/bm25_weighting.hpp);
// - whole lists: each list decoded whole (run files, or query.post for
//   kExhaustive): AND by daat_and, OR by MaxScore (or exhaustively).
// Every path scores with the plan's BM25 (its k1 and b: QueryPlan::bm25).
// Every path returns exactly the exhaustive top k, ties by smaller docid.
#pragma once

#include "query/query_evaluator.hpp"
#include "query/scored_index.hpp"

namespace invidx {

class CpuEvaluator final : public QueryEvaluator {
public:
    // `index` must outlive this.
    explicit CpuEvaluator(const ScoredIndex& index) : index_(index) {}

    SearchResult evaluate(const QueryPlan& plan) const override;

    // kBoolean: required or prohibited terms, no phrase (query/boolean_search.hpp);
    // kClauseTree: nested clauses or a prohibited phrase (query/clause_tree_search.hpp).
    enum class Path { kBoolean, kImpacts, kPhrases, kBlocks, kWholeLists, kClauseTree };
    // The path a plan takes (the list at the top).
    Path path_for(const QueryPlan& plan) const;

private:
    void evaluate_impacts(const QueryPlan& plan, SearchResult& result) const;
    void evaluate_phrases(const QueryPlan& plan, SearchResult& result) const;
    void evaluate_blocks(const QueryPlan& plan, SearchResult& result) const;
    void evaluate_whole_lists(const QueryPlan& plan, SearchResult& result) const;

    const ScoredIndex& index_;
};

}  // namespace invidx
