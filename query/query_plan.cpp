#include "query/query_plan.hpp"

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "query/query_error.hpp"
#include "query/query_syntax.hpp"

namespace invidx {

TermRole QueryPlan::role(size_t term) const { return term < roles.size() ? roles[term] : TermRole::kOptional; }

bool QueryPlan::has_boolean_clauses() const {
    for (size_t i = 0; i < terms.terms.size(); ++i) {
        const TermRole r = role(i);
        if (r == TermRole::kProhibited || (r == TermRole::kRequired && !conjunctive())) return true;
    }
    return false;
}

bool QueryPlan::matches_nothing() const {
    if (contradictory) return true;
    bool scored = false;  // some term that is not prohibited is in the index
    for (size_t i = 0; i < terms.terms.size(); ++i) {
        const TermRole r = role(i);
        if (r == TermRole::kProhibited) continue;
        if (terms.terms[i].index) {
            scored = true;
        } else if (conjunctive() || r == TermRole::kRequired) {
            return true;  // a term every result must hold, which no document has
        }
    }
    return !scored;
}

QueryPlan QueryPlan::in_mode(QueryMode other) const {
    QueryPlan plan = *this;
    plan.mode = other;
    return plan;
}

namespace {

// The options' part of a plan, before any term.
QueryPlan plan_for(const SearchOptions& options, const ScoredIndex& index) {
    QueryPlan plan;
    plan.mode = options.mode;
    plan.k = options.k;
    plan.scoring = options.scoring;
    plan.algorithm = options.algorithm;
    plan.bm25 = index.weighting_for(options);  // a QueryError for bad k1, b
    return plan;
}

// What the clauses naming one term ask of it.
struct TermClauses {
    bool required = false;    // `+`, AND, or a phrase
    bool prohibited = false;  // `-`, NOT
    bool unboosted = false;   // named by a scored clause without `^`
    double boosts = 0.0;      // the boosts of the scored clauses with `^`
    size_t last_clause = 0;   // the last clause (from 1) that named it: a term counts once per clause
};

// The terms of a parsed query, each distinct term once, in order of first
// occurrence, with what its clauses ask.
class ClauseTerms {
public:
    ClauseTerms(QueryPlan& plan, const IndexReader& index) : plan_(plan), index_(index) {}

    // `analyzed`: the terms of one clause (a term repeated in it counts once).
    void add(const QueryClause& clause, const std::vector<std::string>& analyzed) {
        ++clause_number_;
        for (const std::string& term : analyzed) {
            auto [it, fresh] = position_.try_emplace(term, plan_.terms.terms.size());
            if (fresh) {
                plan_.terms.terms.push_back(look_up_term(index_, term));
                clauses_.emplace_back();
            }
            TermClauses& asked = clauses_[it->second];
            if (asked.last_clause == clause_number_) continue;
            asked.last_clause = clause_number_;
            if (clause.occur == Occur::kMustNot) {
                asked.prohibited = true;
                continue;
            }
            if (clause.occur == Occur::kMust || clause.phrase) asked.required = true;
            if (clause.boosted) {
                asked.boosts += clause.boost;
            } else {
                asked.unboosted = true;
            }
        }
    }

    // Roles, query weights and BM25 weights into the plan.
    void finish(const Bm25& bm25) {
        const size_t count = plan_.terms.terms.size();
        plan_.roles.resize(count);
        plan_.query_weights.resize(count);
        plan_.weights.resize(count);
        for (size_t i = 0; i < count; ++i) {
            const TermClauses& asked = clauses_[i];
            plan_.contradictory = plan_.contradictory || (asked.prohibited && asked.required);
            plan_.roles[i] = asked.prohibited ? TermRole::kProhibited
                             : asked.required ? TermRole::kRequired
                                              : TermRole::kOptional;
            // Plain text: exactly 1 (idf · 1.0 is the idf, bit for bit).
            const double weight = asked.prohibited ? 0.0 : (asked.unboosted ? 1.0 : 0.0) + asked.boosts;
            plan_.query_weights[i] = weight;
            const QueryTerm& term = plan_.terms.terms[i];
            plan_.weights[i] = term.index ? bm25.idf(term.df) * weight : 0.0;
        }
    }

private:
    QueryPlan& plan_;
    const IndexReader& index_;
    std::unordered_map<std::string, size_t> position_;  // term -> its index in the plan
    std::vector<TermClauses> clauses_;                  // by term
    size_t clause_number_ = 0;
};

}  // namespace

QueryPlan analyze_query(std::string_view text, const SearchOptions& options, const ScoredIndex& index,
                        Analyzer& analyzer) {
    if (is_vector_query(text)) {
        std::vector<WeightedTerm> vector;
        try {
            vector = parse_term_vector(text);
        } catch (const QueryError& error) {
            throw QueryError("weighted query '" + std::string(text) + "': " + error.what());
        }
        return plan_vector_query(vector, options, index);
    }
    const std::vector<QueryClause> clauses = parse_query_syntax(text);
    QueryPlan plan = plan_for(options, index);
    ClauseTerms terms(plan, index.reader());
    for (const QueryClause& clause : clauses) {
        if (!clause.phrase) {
            terms.add(clause, analyzer.analyze_query(clause.text));
            continue;
        }
        if (clause.occur == Occur::kMustNot) {
            throw QueryError(query_position(text, clause.offset) + ": a prohibited phrase (-\"" + clause.text +
                             "\") is not supported; prohibit its words instead");
        }
        Phrase phrase = analyze_phrase(analyzer, clause.text);
        if (phrase.terms.empty()) continue;  // stop words only: constrains nothing
        std::vector<std::string> words;
        for (const auto& word : phrase.terms) words.push_back(word.term);
        terms.add(clause, words);
        plan.phrases.push_back(std::move(phrase));
    }
    terms.finish(index.bm25());
    return plan;
}

QueryPlan plan_vector_query(std::span<const WeightedTerm> vector, const SearchOptions& options,
                            const ScoredIndex& index) {
    QueryPlan plan = plan_for(options, index);
    std::unordered_set<std::string_view> seen;
    for (const WeightedTerm& weighted : vector) {
        if (!seen.insert(weighted.term).second) throw QueryError("weighted query: the term '" + weighted.term + "' is given twice");
        const QueryTerm& term = plan.terms.terms.emplace_back(look_up_term(index.reader(), weighted.term));
        plan.roles.push_back(TermRole::kOptional);
        plan.query_weights.push_back(weighted.weight);
        plan.weights.push_back(term.index ? index.bm25().idf(term.df) * weighted.weight : 0.0);
    }
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
