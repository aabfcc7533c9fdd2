#include "query/query_plan.hpp"

#include "query/query_error.hpp"

namespace invidx {

bool QueryPlan::matches_nothing() const {
    return terms.count_in_index() == 0 || (conjunctive() && !terms.all_in_index());
}

QueryPlan QueryPlan::in_mode(QueryMode other) const {
    QueryPlan plan = *this;
    plan.mode = other;
    return plan;
}

QueryPlan analyze_query(std::string_view text, const SearchOptions& options, const ScoredIndex& index,
                        Analyzer& analyzer) {
    QueryPlan plan;
    plan.mode = options.mode;
    plan.k = options.k;
    plan.scoring = options.scoring;
    plan.algorithm = options.algorithm;
    plan.terms = query_terms(analyzer, index.reader(), text);
    plan.phrases = query_phrases(analyzer, text);
    plan.weights.reserve(plan.terms.terms.size());
    for (const auto& term : plan.terms.terms) plan.weights.push_back(term.index ? index.bm25().idf(term.df) : 0.0);
    plan.query_weights.assign(plan.terms.terms.size(), 1.0);
    return plan;
}

void check_query_plan(const QueryPlan& plan, const ScoredIndex& index) {
    if (plan.has_phrases() && !index.reader().positional()) {
        throw QueryError("phrase \"" + plan.phrases.front().text + "\" needs positions, but index " +
                         index.reader().directory().string() +
                         " was built without them; rebuild it with positions: invidx-run PIPELINE.json --set positions=true");
    }
    if (!plan.scores_impacts()) return;
    index.require_impacts();
    if (plan.has_phrases()) throw QueryError("phrase queries score by BM25 only: use --scoring bm25");
}

QueryPlan plan_query(std::string_view text, const SearchOptions& options, const ScoredIndex& index,
                     Analyzer& analyzer) {
    QueryPlan plan = analyze_query(text, options, index, analyzer);
    check_query_plan(plan, index);
    return plan;
}

}  // namespace invidx
