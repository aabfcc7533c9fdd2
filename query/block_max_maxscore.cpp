#include "query/block_max_maxscore.hpp"

#include <algorithm>
#include <cstdint>

#include "query/pruning.hpp"

namespace invidx {

std::vector<ScoredDocument> block_max_maxscore(std::span<BlockCursor> cursors, std::span<const double> norms,
                                               const Bm25& bm25, size_t k, QueryStats* stats) {
    QueryStats local;
    TopK top(k);
    const size_t n = cursors.size();
    if (n > 0 && k > 0) {
        for (const auto& cursor : cursors) local.postings += cursor.size();
        // by_bound[i]: the cursor with the i-th smallest list bound.
        std::vector<BlockCursor*> by_bound(n);
        for (size_t t = 0; t < n; ++t) by_bound[t] = &cursors[t];
        std::stable_sort(by_bound.begin(), by_bound.end(),
                         [](const BlockCursor* a, const BlockCursor* b) { return a->max_score() < b->max_score(); });
        const auto query_position = [&](const BlockCursor* cursor) { return static_cast<size_t>(cursor - cursors.data()); };
        // bound_below[i]: the sum of the list bounds of by_bound[0..i-1].
        std::vector<double> bound_below(n + 1, 0.0);
        for (size_t i = 0; i < n; ++i) bound_below[i + 1] = bound_below[i] + by_bound[i]->max_score();
        // block_below[i]: the same with the block maxima at the candidate (non-essential lists).
        std::vector<double> block_below(n + 1, 0.0);
        std::vector<double> contributions(n, 0.0);  // by query position
        size_t first_essential = 0;                 // by_bound[0, first_essential) are non-essential

        while (first_essential < n) {
            uint32_t candidate = kNoDocument;
            for (size_t i = first_essential; i < n; ++i) candidate = std::min(candidate, by_bound[i]->docid());
            if (candidate == kNoDocument) break;
            ++local.documents_considered;
            const double threshold = top.threshold();

            if (top.full()) {
                // The block-max bound of every docid from the candidate to `next`, nothing decoded.
                double bound = 0.0;
                uint32_t next = kNoDocument;
                for (size_t i = 0; i < n; ++i) {
                    BlockCursor& cursor = *by_bound[i];
                    if (i >= first_essential && cursor.docid() != candidate) {
                        next = std::min(next, cursor.docid());  // not in its list before that
                        continue;
                    }
                    const double block_max = cursor.block_max_score(candidate);
                    bound += block_max;
                    if (i < first_essential) block_below[i + 1] = block_below[i] + block_max;
                    const uint32_t last = cursor.block_last_docid();
                    if (last != kNoDocument) next = std::min(next, last + 1);
                }
                if (!may_enter(bound, threshold)) {
                    for (size_t i = first_essential; i < n; ++i) {
                        if (by_bound[i]->docid() == candidate) by_bound[i]->next_geq(next);
                    }
                    continue;
                }
            }

            const double norm = norms[candidate];
            double partial = 0.0;  // for bounds only; the score itself is summed in query order
            for (size_t i = first_essential; i < n; ++i) {
                BlockCursor& cursor = *by_bound[i];
                if (cursor.docid() != candidate) continue;
                const double c = bm25.score(cursor.idf(), cursor.tf(), norm);
                contributions[query_position(&cursor)] = c;
                partial += c;
                cursor.next();
            }
            bool pruned = false;
            for (size_t i = first_essential; i-- > 0;) {  // largest bound first
                // Before the top k is full every document enters: no bound is needed.
                if (top.full() && !may_enter(partial + block_below[i + 1], threshold)) {
                    pruned = true;
                    break;
                }
                BlockCursor& cursor = *by_bound[i];
                cursor.next_geq(candidate);
                if (cursor.docid() != candidate) continue;
                const double c = bm25.score(cursor.idf(), cursor.tf(), norm);
                contributions[query_position(&cursor)] = c;
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
    add_block_counts(cursors, local);
    if (stats) *stats += local;
    return top.take_sorted();
}

}  // namespace invidx
