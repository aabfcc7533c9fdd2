#include "query/clause_tree.hpp"

#include <algorithm>
#include <utility>

namespace invidx {
namespace {

bool is_group(const ClauseNode& node) { return node.kind == ClauseNode::Kind::kGroup; }

bool all_of_occur(const ClauseNode& group, Occur occur) {
    return std::all_of(group.children.begin(), group.children.end(), [occur](const ClauseNode& c) { return c.occur == occur; });
}

bool any_of_occur(const ClauseNode& group, Occur occur) {
    return std::any_of(group.children.begin(), group.children.end(), [occur](const ClauseNode& c) { return c.occur == occur; });
}

// The clauses that may stand in `group`'s place in its parent, with the
// occur each takes there; false when the group must stay. Each rule holds
// in OR and in AND (where optional clauses are required):
// - one positive clause x: the group matches exactly when x does, so x
//   takes the group's occur (optional stays optional: `(+a) b` is `a b`);
// - optional, every clause optional: its clauses join the parent's optional ones;
// - required, some clause required: the parent requires those, prohibits
//   the prohibited ones, and its own required clause makes the optional
//   ones decide nothing, as they decided nothing in the group.
bool inline_into_parent(ClauseNode& group, std::vector<ClauseNode>& out) {
    if (group.children.size() == 1 && group.children.front().occur != Occur::kMustNot) {
        ClauseNode only = std::move(group.children.front());
        only.occur = group.occur;
        out.push_back(std::move(only));
        return true;
    }
    const bool spliced = (group.occur == Occur::kShould && all_of_occur(group, Occur::kShould)) ||
                         (group.occur == Occur::kMust && any_of_occur(group, Occur::kMust));
    if (!spliced) return false;
    for (ClauseNode& child : group.children) out.push_back(std::move(child));
    return true;
}

// One pass over `group` and its descendants; true if anything changed.
bool simplify_once(ClauseNode& group) {
    bool changed = false;
    for (ClauseNode& child : group.children) {
        if (is_group(child)) changed = simplify_once(child) || changed;
    }
    // The only positive clause of a group is as good as required (without
    // a required clause the group needs one optional clause to match: this
    // one); a term keeps its occur (the flat roles' `fox -dog`), a phrase is
    // required, as a phrase of the flat roles is. A group matches exactly
    // when its only positive group does and none of its prohibited clauses
    // matches: the inner group's clauses take its place.
    size_t positive = 0, at = 0;
    for (size_t i = 0; i < group.children.size(); ++i) {
        if (group.children[i].occur == Occur::kMustNot) continue;
        ++positive;
        at = i;
    }
    if (positive == 1 && group.children[at].kind != ClauseNode::Kind::kTerm) {
        ClauseNode& only = group.children[at];
        changed = changed || only.occur != Occur::kMust;
        only.occur = Occur::kMust;
        if (is_group(only)) {
            std::vector<ClauseNode> inner = std::move(only.children);
            group.children.erase(group.children.begin() + static_cast<std::ptrdiff_t>(at));
            group.children.insert(group.children.begin() + static_cast<std::ptrdiff_t>(at),
                                  std::make_move_iterator(inner.begin()), std::make_move_iterator(inner.end()));
            return true;
        }
    }
    std::vector<ClauseNode> children;
    children.reserve(group.children.size());
    for (ClauseNode& child : group.children) {
        if (is_group(child) && inline_into_parent(child, children)) {
            changed = true;
            continue;
        }
        children.push_back(std::move(child));
    }
    group.children = std::move(children);
    return changed;
}

bool can_match(const ClauseNode& node, bool conjunctive, const QueryTerms& terms) {
    switch (node.kind) {
        case ClauseNode::Kind::kTerm: return terms.terms[node.index].index.has_value();
        case ClauseNode::Kind::kPhrase: {
            return std::all_of(node.words.begin(), node.words.end(), [&](size_t t) { return terms.terms[t].index.has_value(); });
        }
        case ClauseNode::Kind::kGroup: break;
    }
    bool required = false, optional = false;
    for (const ClauseNode& child : node.children) {
        const Occur occur = effective_occur(child.occur, conjunctive);
        if (occur == Occur::kMustNot) continue;
        const bool possible = can_match(child, conjunctive, terms);
        if (occur == Occur::kMust) {
            if (!possible) return false;
            required = true;
        } else {
            optional = optional || possible;
        }
    }
    return required || optional;
}

}  // namespace

void simplify_clause_tree(ClauseNode& root) {
    while (simplify_once(root)) {
    }
}

bool is_flat_clause_tree(const ClauseNode& root) {
    return std::all_of(root.children.begin(), root.children.end(), [](const ClauseNode& c) {
        return c.kind == ClauseNode::Kind::kTerm || (c.kind == ClauseNode::Kind::kPhrase && c.occur == Occur::kMust);
    });
}

bool clause_tree_can_match(const ClauseNode& root, bool conjunctive, const QueryTerms& terms) {
    return can_match(root, conjunctive, terms);
}

}  // namespace invidx
