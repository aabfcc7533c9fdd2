#include "query/query_plan.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "query/query_error.hpp"
#include "query/query_syntax.hpp"

namespace invidx {

TermRole QueryPlan::role(size_t term) const { return term < roles.size() ? roles[term] : TermRole::kOptional; }

bool QueryPlan::has_boolean_clauses() const {
    if (clause_tree) return true;
    for (size_t i = 0; i < terms.terms.size(); ++i) {
        const TermRole r = role(i);
        if (r == TermRole::kProhibited || (r == TermRole::kRequired && !conjunctive())) return true;
    }
    return false;
}

bool QueryPlan::matches_nothing() const {
    if (contradictory) return true;
    if (clause_tree) return !clause_tree_can_match(*clause_tree, conjunctive(), terms);
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
    bool scored = false;      // named by a clause outside every prohibition
    bool unboosted = false;   // named by a scored clause without a boost (its own or its groups')
    double boosts = 0.0;      // the boosts of the scored clauses with one (times their groups')
    size_t last_clause = 0;   // the last clause (from 1) that named it: a term counts once per clause
};

// Where a clause stands: the boosts of its groups, and whether one is prohibited.
struct ClauseContext {
    double boost = 1.0;
    bool boosted = false;
    bool prohibited = false;

    ClauseContext inside(const QueryClause& clause) const {
        return {boost * clause.boost, boosted || clause.boosted, prohibited || clause.occur == Occur::kMustNot};
    }
};

// The terms of a parsed query, each distinct term once, in order of first
// occurrence, and its clauses as a tree (query/clause_tree.hpp), made flat
// roles when the tree is flat.
class ClauseTerms {
public:
    ClauseTerms(QueryPlan& plan, const IndexReader& index, Analyzer& analyzer)
        : plan_(plan), index_(index), analyzer_(analyzer) {}

    // The nodes of `clauses` (a group's, or the query's), in order: a word
    // clause is one term node per distinct term it analyzes to (none for a
    // stop word), a phrase one node (none when it analyzes away; required
    // unless prohibited, as a phrase always is), a group one node (none
    // when none of its clauses gives one).
    std::vector<ClauseNode> nodes(const std::vector<QueryClause>& clauses, const ClauseContext& around) {
        std::vector<ClauseNode> out;
        for (const QueryClause& clause : clauses) {
            const ClauseContext context = around.inside(clause);
            if (clause.group) {
                ClauseNode group{.kind = ClauseNode::Kind::kGroup, .occur = clause.occur};
                group.children = nodes(clause.children, context);
                if (group.children.empty()) continue;
                had_groups_ = true;
                out.push_back(std::move(group));
                continue;
            }
            if (!clause.phrase) {
                ++clause_number_;
                std::unordered_set<size_t> named;  // a term repeated within the clause: one node
                for (const std::string& term : analyzer_.analyze_query(clause.text)) {
                    const size_t index = add(term, context);
                    if (named.insert(index).second) {
                        out.push_back({.kind = ClauseNode::Kind::kTerm, .occur = clause.occur, .index = index});
                    }
                }
                continue;
            }
            Phrase phrase = analyze_phrase(analyzer_, clause.text);
            if (phrase.terms.empty()) continue;  // stop words only: constrains nothing
            ++clause_number_;
            ClauseNode node{.kind = ClauseNode::Kind::kPhrase,
                            .occur = clause.occur == Occur::kShould ? Occur::kMust : clause.occur,
                            .index = plan_.phrases.size()};
            for (const auto& word : phrase.terms) node.words.push_back(add(word.term, context));
            plan_.phrases.push_back(std::move(phrase));
            out.push_back(std::move(node));
        }
        return out;
    }

    // Roles, query weights and BM25 weights into the plan, from `root` (simplified).
    void finish(ClauseNode root, const Bm25& bm25) {
        const size_t count = plan_.terms.terms.size();
        plan_.roles.assign(count, TermRole::kOptional);
        plan_.query_weights.resize(count);
        plan_.weights.resize(count);
        const bool flat = is_flat_clause_tree(root) && !(had_groups_ && optional_and_prohibited(root));
        std::vector<bool> required(count, false), prohibited(count, false);
        if (flat) {
            for (const ClauseNode& leaf : root.children) {
                if (leaf.kind == ClauseNode::Kind::kPhrase) {
                    for (const size_t t : leaf.words) required[t] = true;
                } else if (leaf.occur == Occur::kMustNot) {
                    prohibited[leaf.index] = true;
                } else if (leaf.occur == Occur::kMust) {
                    required[leaf.index] = true;
                }
            }
        } else {
            plan_.clause_tree = std::make_shared<const ClauseNode>(std::move(root));
            for (size_t i = 0; i < count; ++i) prohibited[i] = !clauses_[i].scored;
        }
        for (size_t i = 0; i < count; ++i) {
            const TermClauses& asked = clauses_[i];
            plan_.contradictory = plan_.contradictory || (prohibited[i] && required[i]);
            plan_.roles[i] = prohibited[i] ? TermRole::kProhibited : required[i] ? TermRole::kRequired : TermRole::kOptional;
            // Plain text: exactly 1 (idf · 1.0 is the idf, bit for bit).
            const double weight = prohibited[i] ? 0.0 : (asked.unboosted ? 1.0 : 0.0) + asked.boosts;
            plan_.query_weights[i] = weight;
            const QueryTerm& term = plan_.terms.terms[i];
            plan_.weights[i] = term.index ? bm25.idf(term.df) * weight : 0.0;
        }
    }

private:
    // A term that `root` both names optionally and prohibits. Without
    // parentheses --mode and leaves it prohibited (as it always has: `a -a
    // b` is `+b -a`); a query with groups keeps Lucene's rule, where AND
    // makes every optional clause required (`(a b) -a` matches nothing), so
    // such a tree stays a tree.
    static bool optional_and_prohibited(const ClauseNode& root) {
        std::unordered_set<size_t> optional, prohibited;
        for (const ClauseNode& leaf : root.children) {
            if (leaf.kind != ClauseNode::Kind::kTerm) continue;
            if (leaf.occur == Occur::kShould) optional.insert(leaf.index);
            if (leaf.occur == Occur::kMustNot) prohibited.insert(leaf.index);
        }
        return std::any_of(optional.begin(), optional.end(), [&](size_t t) { return prohibited.contains(t); });
    }

    // The term's index in the plan, added on first sight; its weight from
    // this clause, once per clause, unless the clause is prohibited.
    size_t add(const std::string& term, const ClauseContext& context) {
        auto [it, fresh] = position_.try_emplace(term, plan_.terms.terms.size());
        if (fresh) {
            plan_.terms.terms.push_back(look_up_term(index_, term));
            clauses_.emplace_back();
        }
        TermClauses& asked = clauses_[it->second];
        if (context.prohibited || asked.last_clause == clause_number_) return it->second;
        asked.last_clause = clause_number_;
        asked.scored = true;
        if (context.boosted) {
            asked.boosts += context.boost;
        } else {
            asked.unboosted = true;
        }
        return it->second;
    }

    QueryPlan& plan_;
    const IndexReader& index_;
    Analyzer& analyzer_;
    std::unordered_map<std::string, size_t> position_;  // term -> its index in the plan
    std::vector<TermClauses> clauses_;                  // by term
    size_t clause_number_ = 0;
    bool had_groups_ = false;  // some group gave a node
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
    ClauseTerms terms(plan, index.reader(), analyzer);
    ClauseNode root{.kind = ClauseNode::Kind::kGroup, .occur = Occur::kMust};
    root.children = terms.nodes(clauses, {});
    simplify_clause_tree(root);
    terms.finish(std::move(root), index.bm25());
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
