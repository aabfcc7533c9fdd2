// A query whose clauses nest (parentheses) or prohibit a phrase, as a tree
// (docs/QUERY.md, "Query syntax"): the flat roles of QueryPlan cannot say
// "at least one of a, b" (`+(a b)`) or "not both" (`-(+a +b)`). Each node is
// a term, a phrase or a group of clauses, and how its group asks for it.
// A group matches as a Lucene BooleanQuery does: every required clause
// matches, no prohibited one does and, with no required clause, at least one
// optional clause does (a group of prohibited clauses only matches nothing);
// with --mode and every optional clause is required, at every depth.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "query/query_syntax.hpp"
#include "query/query_terms.hpp"

namespace invidx {

struct ClauseNode {
    enum class Kind : uint8_t { kTerm, kPhrase, kGroup };
    Kind kind = Kind::kGroup;
    Occur occur = Occur::kShould;
    size_t index = 0;                  // kTerm: into QueryPlan::terms.terms; kPhrase: into QueryPlan::phrases
    std::vector<size_t> words;         // kPhrase: each phrase term's index in QueryPlan::terms.terms
    std::vector<ClauseNode> children;  // kGroup: its clauses, in query order
};

// Rewrites `root` (a group) into a tree that matches the same documents in
// both modes with fewer groups: a group that is its parent's only positive
// clause, an optional group of optional clauses, a required group with a
// required clause, and a group of one positive clause are replaced by their
// clauses. Terms and phrases keep their order, so scores are unchanged.
void simplify_clause_tree(ClauseNode& root);

// True when `root`'s clauses are terms and required phrases only: what the
// plan's flat roles express (query/term_role.hpp).
bool is_flat_clause_tree(const ClauseNode& root);

// Occur as evaluated: with --mode and (`conjunctive`) optional is required.
inline Occur effective_occur(Occur occur, bool conjunctive) {
    return conjunctive && occur == Occur::kShould ? Occur::kMust : occur;
}

// Whether `node` matches a document; `holds(leaf)` says whether the
// document holds a term or phrase node. Prohibited and required clauses are
// asked first; optional ones only when no clause is required.
template <typename Holds>
bool clause_matches(const ClauseNode& node, bool conjunctive, Holds& holds) {
    if (node.kind != ClauseNode::Kind::kGroup) return holds(node);
    bool required = false;
    for (const ClauseNode& child : node.children) {
        const Occur occur = effective_occur(child.occur, conjunctive);
        if (occur == Occur::kShould) continue;
        const bool matched = clause_matches(child, conjunctive, holds);
        if (occur == Occur::kMustNot && matched) return false;
        if (occur == Occur::kMust) {
            if (!matched) return false;
            required = true;
        }
    }
    if (required) return true;
    for (const ClauseNode& child : node.children) {
        if (effective_occur(child.occur, conjunctive) == Occur::kShould && clause_matches(child, conjunctive, holds)) return true;
    }
    return false;
}

// False when no document can match `root` whatever it holds: a required
// clause (or every optional one, without required ones) names a term absent
// from `terms` (a phrase: any of its words), or no clause is positive.
bool clause_tree_can_match(const ClauseNode& root, bool conjunctive, const QueryTerms& terms);

}  // namespace invidx
