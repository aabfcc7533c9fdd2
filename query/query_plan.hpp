// A query analyzed once, before any list is read: its distinct terms looked
// up in the index with their BM25 weights, its phrases, and what the options
// ask for (mode, k, scoring, algorithm). Every evaluator, CPU or GPU, answers
// a plan (query/query_evaluator.hpp); and-or evaluates the same plan in two
// modes (query/and_or_fallback.hpp), so a query is analyzed and checked once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "analysis/analyzer.hpp"
#include "query/algorithm.hpp"
#include "query/clause_tree.hpp"
#include "query/phrase_query.hpp"
#include "query/query_mode.hpp"
#include "query/query_scoring.hpp"
#include "query/query_terms.hpp"
#include "query/scored_index.hpp"
#include "query/search_options.hpp"
#include "query/term_role.hpp"
#include "query/vector_query.hpp"

namespace invidx {

struct QueryPlan {
    // Distinct analyzed terms in order of first occurrence, each looked up
    // in the index; '"' separates tokens, so phrase words are among them.
    QueryTerms terms;
    std::vector<TermRole> roles;  // by term
    // A term both required and prohibited (`+a -a`): no document can match.
    bool contradictory = false;
    std::vector<double> weights;  // by term: its BM25 idf; 0 for a term absent from the index
    // By term: the query's own weight for it (`term^2`, a weighted query's
    // value; 1 for plain text). BM25 multiplies it into `weights`; impact
    // scoring multiplies each document impact by it.
    std::vector<double> query_weights;
    std::vector<Phrase> phrases;  // the quoted parts, in order; empty: none
    // Set when the clauses nest (parentheses) or a phrase is prohibited in
    // a way the flat roles cannot say (query/clause_tree.hpp): which
    // documents match is the tree's, evaluated on the CPU
    // (query/clause_tree_search.hpp). `roles` then says only which terms
    // are prohibited wherever they occur (kProhibited; all others
    // kOptional), and `phrases` holds the prohibited ones too. Null: the
    // roles and phrases say it all (a filter: every phrase is required).
    std::shared_ptr<const ClauseNode> clause_tree;
    QueryMode mode = QueryMode::kOr;
    size_t k = 10;
    QueryScoring scoring = QueryScoring::kBm25;
    Algorithm algorithm = Algorithm::kBlockMaxMaxscore;
    // The BM25 (k1, b) the plan scores by: SearchOptions' k1 and b, else the
    // index's (ScoredIndex::weighting_for); null: the index's.
    std::shared_ptr<const Bm25Weighting> bm25;

    // A term's role; kOptional past `roles` (a plan made by hand).
    TermRole role(size_t term) const;
    bool has_phrases() const { return !phrases.empty(); }
    bool conjunctive() const { return mode == QueryMode::kAnd; }
    bool scores_impacts() const { return scoring == QueryScoring::kImpact; }
    // A term prohibited, or (in OR) required, or a clause tree: evaluated by
    // query/boolean_search.hpp (query/clause_tree_search.hpp), on the CPU (a
    // GPU evaluator hands such plans to the CPU's).
    bool has_boolean_clauses() const;
    // No term left but prohibited ones (stop words only), a required term
    // (AND: any term) no document has, or a contradiction: the answer is
    // no document, on any device, without reading a list.
    bool matches_nothing() const;
    // The same query in another mode (and-or's two evaluations).
    QueryPlan in_mode(QueryMode other) const;
};

// `text` parsed by the query syntax (query/query_syntax.hpp) and each
// clause analyzed as documents are (`analyzer` with the index's settings);
// text whose first non-blank character is '{' is a weighted term vector in
// JSON (plan_vector_query). A QueryError for malformed syntax (an
// unterminated quote, a dangling operator, an unbalanced parenthesis, ...);
// nothing else is checked. A term's query weight is 1 if some clause names
// it without a boost, plus the boosts of the boosted clauses naming it
// (each clause counted once; a clause in boosted groups takes the product
// of their boosts and its own), over the clauses that are not prohibited
// (nor inside a prohibited group); a flat plan's prohibited term weighs 0.
QueryPlan analyze_query(std::string_view text, const SearchOptions& options, const ScoredIndex& index,
                        Analyzer& analyzer);

// A weighted query: each term verbatim (no analysis), optional, with its
// weight as query weight (BM25: idf · weight).
QueryPlan plan_vector_query(std::span<const WeightedTerm> vector, const SearchOptions& options,
                            const ScoredIndex& index);

// A QueryError when the index cannot answer the plan on any device, checked
// in this order: a phrase on an index without positions; impact scoring on
// an index without impacts (whatever the query's terms); a phrase scored by
// impacts.
void check_query_plan(const QueryPlan& plan, const ScoredIndex& index);

// analyze_query, then check_query_plan: what a Searcher evaluates.
QueryPlan plan_query(std::string_view text, const SearchOptions& options, const ScoredIndex& index,
                     Analyzer& analyzer);

}  // namespace invidx
