#include "query/boolean_search.hpp"

#include <algorithm>
#include <span>

#include "query/impact_list.hpp"
#include "query/impact_weights.hpp"
#include "query/posting_cursor.hpp"
#include "query/required_intersection.hpp"

namespace invidx {

std::vector<ScoredDocument> boolean_search(const QueryPlan& plan, const ScoredIndex& index,
                                           const Bm25Weighting& bm25, QueryStats* stats) {
    QueryStats local;
    QueryStats& counts = stats ? *stats : local;
    const bool impacts = plan.scores_impacts();
    const QueryPostings* layout = impacts ? index.query_postings() : index.layout_for(plan.algorithm);
    const auto& norms = bm25.length_norms();
    // Impacts: integer query weights, scored as every impact path scores them
    // (query/impact_weights.hpp), so a document's score is theirs to the bit.
    ImpactWeights integer_weights;
    if (impacts) integer_weights = impact_weights(plan, layout->impact_bits());

    // Each present term's list, decoded once, in query order.
    std::vector<run_list::DecodedList> postings;
    postings.reserve(plan.terms.terms.size());  // the lists point into it
    std::vector<ScoredList> lists;
    lists.reserve(plan.terms.terms.size());
    std::vector<TermRole> roles;
    for (size_t i = 0; i < plan.terms.terms.size(); ++i) {
        const QueryTerm& term = plan.terms.terms[i];
        TermRole role = plan.role(i);
        if (plan.conjunctive() && role == TermRole::kOptional) role = TermRole::kRequired;
        if (!term.index) {
            if (role == TermRole::kRequired) return {};  // a term every result holds, which no document has
            continue;
        }
        if (impacts) {
            postings.push_back(decoded_impact_list(layout->list(*term.index)));
        } else {
            postings.push_back(layout ? layout->list(*term.index).decode() : index.reader().postings(*term.index));
        }
        // BM25: idf · query weight; impacts: the integer query weight.
        const double weight = impacts ? static_cast<double>(integer_weights.by_term[i]) : plan.weights[i];
        lists.push_back(ScoredList{.docids = postings.back().docids, .tfs = postings.back().tfs, .idf = weight, .max_score = 0.0});
        roles.push_back(role);
        counts.postings += postings.back().docids.size();
    }
    std::vector<PostingCursor> cursors(lists.begin(), lists.end());
    std::vector<size_t> required, prohibited, optional, scored;
    for (size_t l = 0; l < cursors.size(); ++l) {
        if (roles[l] == TermRole::kRequired) required.push_back(l);
        if (roles[l] == TermRole::kProhibited) prohibited.push_back(l);
        // Impacts: an optional term whose weight rounds to 0 matches nothing (as in impact OR).
        if (roles[l] == TermRole::kOptional && lists[l].idf > 0.0) optional.push_back(l);
        if (roles[l] != TermRole::kProhibited) scored.push_back(l);
    }

    TopK top(plan.k);
    // A candidate: rejected if a prohibited list holds it, else scored in
    // query-term order (absent terms add 0.0, as in every algorithm).
    const auto consider = [&](uint32_t docid) {
        ++counts.documents_considered;
        for (const size_t l : prohibited) {
            cursors[l].next_geq(docid);
            if (cursors[l].docid() == docid) return;
        }
        double score = 0.0;  // impacts: the integer sum, exact in a double
        for (const size_t l : scored) {
            PostingCursor& cursor = cursors[l];
            cursor.next_geq(docid);
            if (cursor.docid() != docid) continue;
            score += impacts ? cursor.idf() * static_cast<double>(cursor.tf())
                             : bm25.bm25().score(cursor.idf(), cursor.tf(), norms[docid]);
        }
        ++counts.documents_scored;
        top.push({docid, impacts ? integer_weights.score(score) : score});
    };

    if (!required.empty()) {
        for_each_in_all(std::span<PostingCursor>(cursors), required, consider);
    } else {
        // No required term: every document of an optional list, in docid order.
        while (true) {
            uint32_t docid = kNoDocument;
            for (const size_t l : optional) docid = std::min(docid, cursors[l].docid());
            if (docid == kNoDocument) break;
            consider(docid);
            for (const size_t l : optional) {
                if (cursors[l].docid() == docid) cursors[l].next();
            }
        }
    }
    return top.take_sorted();
}

}  // namespace invidx
