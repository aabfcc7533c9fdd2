#include "query/clause_tree_search.hpp"

#include <algorithm>
#include <limits>
#include <span>

#include "query/impact_list.hpp"
#include "query/impact_weights.hpp"
#include "query/phrase_match.hpp"
#include "query/posting_cursor.hpp"
#include "query/required_intersection.hpp"

namespace invidx {
namespace {

constexpr size_t kAbsent = std::numeric_limits<size_t>::max();

// The lists of the leaves `node` holds outside prohibited clauses: a
// matching document is in one of them.
void positive_lists(const ClauseNode& node, bool conjunctive, const std::vector<size_t>& list_of,
                    std::vector<size_t>& out) {
    const auto add = [&](size_t term) {
        if (list_of[term] != kAbsent) out.push_back(list_of[term]);
    };
    switch (node.kind) {
        case ClauseNode::Kind::kTerm: add(node.index); return;
        case ClauseNode::Kind::kPhrase:
            for (const size_t term : node.words) add(term);
            return;
        case ClauseNode::Kind::kGroup:
            for (const ClauseNode& child : node.children) {
                if (effective_occur(child.occur, conjunctive) != Occur::kMustNot) positive_lists(child, conjunctive, list_of, out);
            }
            return;
    }
}

}  // namespace

std::vector<ScoredDocument> clause_tree_search(const QueryPlan& plan, const ScoredIndex& index,
                                               const Bm25Weighting& bm25, QueryStats* stats) {
    QueryStats local;
    QueryStats& counts = stats ? *stats : local;
    const ClauseNode& root = *plan.clause_tree;
    const bool conjunctive = plan.conjunctive();
    const bool impacts = plan.scores_impacts();
    // Positions live in the run files only.
    const QueryPostings* layout = impacts ? index.query_postings() : plan.has_phrases() ? nullptr : index.layout_for(plan.algorithm);
    const auto& norms = bm25.length_norms();
    ImpactWeights integer_weights;
    if (impacts) integer_weights = impact_weights(plan, layout->impact_bits());

    // Each present term's list, decoded once, in query order.
    const size_t term_count = plan.terms.terms.size();
    std::vector<PositionalPostings> postings;
    postings.reserve(term_count);  // the lists point into it
    std::vector<ScoredList> lists;
    lists.reserve(term_count);
    std::vector<size_t> list_of(term_count, kAbsent);
    for (size_t i = 0; i < term_count; ++i) {
        const QueryTerm& term = plan.terms.terms[i];
        if (!term.index) continue;
        if (impacts) {
            postings.emplace_back(decoded_impact_list(layout->list(*term.index)));
        } else {
            postings.emplace_back(layout ? layout->list(*term.index).decode() : index.reader().postings(*term.index));
        }
        // BM25: idf · query weight; impacts: the integer query weight.
        const double weight = impacts ? static_cast<double>(integer_weights.by_term[i]) : plan.weights[i];
        const run_list::DecodedList& decoded = postings.back().postings;
        lists.push_back(ScoredList{.docids = decoded.docids, .tfs = decoded.tfs, .idf = weight, .max_score = 0.0});
        list_of[i] = lists.size() - 1;
        counts.postings += decoded.docids.size();
    }
    std::vector<PostingCursor> cursors(lists.begin(), lists.end());

    // Whether the document `docid` holds a term or a phrase of the tree.
    uint32_t docid = 0;
    const auto on_docid = [&](size_t term) {
        if (list_of[term] == kAbsent) return false;
        PostingCursor& cursor = cursors[list_of[term]];
        cursor.next_geq(docid);
        return cursor.docid() == docid;
    };
    const auto holds = [&](const ClauseNode& leaf) {
        if (leaf.kind == ClauseNode::Kind::kTerm) return on_docid(leaf.index);
        if (!std::all_of(leaf.words.begin(), leaf.words.end(), on_docid)) return false;
        return phrase_occurs(plan.phrases[leaf.index], [&](size_t j) {
            const size_t list = list_of[leaf.words[j]];
            return postings[list].positions(cursors[list].position());
        });
    };

    TopK top(plan.k);
    // A candidate: matched against the tree, then scored over the terms a
    // clause outside every prohibition names (query-term order, absent
    // terms adding nothing, as in every algorithm).
    const auto consider = [&](uint32_t candidate) {
        ++counts.documents_considered;
        docid = candidate;
        if (!clause_matches(root, conjunctive, holds)) return;
        double score = 0.0;  // impacts: the integer sum, exact in a double
        for (size_t i = 0; i < term_count; ++i) {
            if (list_of[i] == kAbsent || plan.role(i) == TermRole::kProhibited) continue;
            PostingCursor& cursor = cursors[list_of[i]];
            cursor.next_geq(candidate);
            if (cursor.docid() != candidate) continue;
            score += impacts ? cursor.idf() * static_cast<double>(cursor.tf())
                             : bm25.bm25().score(cursor.idf(), cursor.tf(), norms[candidate]);
        }
        ++counts.documents_scored;
        top.push({candidate, impacts ? integer_weights.score(score) : score});
    };

    // What the whole query requires: its own required terms and phrases' words.
    std::vector<size_t> required;
    for (const ClauseNode& child : root.children) {
        if (effective_occur(child.occur, conjunctive) != Occur::kMust || child.kind == ClauseNode::Kind::kGroup) continue;
        positive_lists(child, conjunctive, list_of, required);
    }
    if (!required.empty()) {
        for_each_in_all(std::span<PostingCursor>(cursors), required, consider);
        return top.take_sorted();
    }
    // Otherwise every document of a list outside the prohibited clauses, in
    // docid order. Their own cursors walk them: `consider` moves the shared
    // cursors up to the candidate only.
    std::vector<size_t> union_lists;
    positive_lists(root, conjunctive, list_of, union_lists);
    std::sort(union_lists.begin(), union_lists.end());
    union_lists.erase(std::unique(union_lists.begin(), union_lists.end()), union_lists.end());
    std::vector<PostingCursor> walkers;
    for (const size_t l : union_lists) walkers.emplace_back(lists[l]);
    while (true) {
        uint32_t next = kNoDocument;
        for (const PostingCursor& walker : walkers) next = std::min(next, walker.docid());
        if (next == kNoDocument) break;
        consider(next);
        for (PostingCursor& walker : walkers) {
            if (walker.docid() == next) walker.next();
        }
    }
    return top.take_sorted();
}

}  // namespace invidx
