#include "query/maxscore_or.hpp"

#include <algorithm>
#include <numeric>

#include "query/pruning.hpp"

namespace invidx {

std::vector<ScoredDocument> maxscore_or(std::span<const ScoredList> lists, std::span<const double> norms,
                                        const Bm25& bm25, size_t k, QueryStats* stats) {
    QueryStats local;
    TopK top(k);
    const size_t n = lists.size();
    if (n > 0 && k > 0) {
        for (const auto& list : lists) local.postings += list.docids.size();
        // order[i]: the query position of the term with the i-th smallest bound.
        std::vector<size_t> order(n);
        std::iota(order.begin(), order.end(), size_t{0});
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return lists[a].max_score < lists[b].max_score; });
        std::vector<PostingCursor> cursors;
        cursors.reserve(n);
        for (const size_t t : order) cursors.emplace_back(lists[t]);
        // bound_below[i]: the sum of the bounds of cursors 0..i-1.
        std::vector<double> bound_below(n + 1, 0.0);
        for (size_t i = 0; i < n; ++i) bound_below[i + 1] = bound_below[i] + cursors[i].list().max_score;

        std::vector<double> contributions(n, 0.0);  // by query position
        size_t first_essential = 0;                 // cursors [0, first_essential) are non-essential

        while (first_essential < n) {
            uint32_t candidate = kNoDocument;
            for (size_t i = first_essential; i < n; ++i) candidate = std::min(candidate, cursors[i].docid());
            if (candidate == kNoDocument) break;
            ++local.documents_considered;
            const double norm = norms[candidate];

            double partial = 0.0;  // for bounds only; the score itself is summed in query order
            for (size_t i = first_essential; i < n; ++i) {
                PostingCursor& cursor = cursors[i];
                if (cursor.docid() != candidate) continue;
                const double c = bm25.score(cursor.list().idf, cursor.tf(), norm);
                contributions[order[i]] = c;
                partial += c;
                cursor.next();
            }
            const double threshold = top.threshold();
            bool pruned = false;
            for (size_t i = first_essential; i-- > 0;) {  // largest bound first
                if (!may_enter(partial + bound_below[i + 1], threshold)) {
                    pruned = true;
                    break;
                }
                PostingCursor& cursor = cursors[i];
                cursor.next_geq(candidate);
                if (cursor.docid() != candidate) continue;
                const double c = bm25.score(cursor.list().idf, cursor.tf(), norm);
                contributions[order[i]] = c;
                partial += c;
            }
            if (!pruned) {
                ++local.documents_scored;
                if (top.push({candidate, sum_in_query_order(contributions)})) {
                    const double raised = top.threshold();
                    while (first_essential < n && !may_enter(bound_below[first_essential + 1], raised)) ++first_essential;
                }
            }
            std::fill(contributions.begin(), contributions.end(), 0.0);
        }
    }
    if (stats) *stats += local;
    return top.take_sorted();
}

}  // namespace invidx
