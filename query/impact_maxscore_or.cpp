#include "query/impact_maxscore_or.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "query/impact_topk.hpp"
#include "query/maxscore_or.hpp"

namespace invidx {

std::vector<ScoredDocument> impact_maxscore_or(std::span<ImpactBlockCursor> cursors, size_t k, QueryStats* stats) {
    const size_t n = cursors.size();
    // by_bound[i]: the cursor with the i-th smallest list maximum (ties in query order).
    std::vector<ImpactBlockCursor*> by_bound(n);
    for (size_t t = 0; t < n; ++t) by_bound[t] = &cursors[t];
    std::stable_sort(by_bound.begin(), by_bound.end(),
                     [](const ImpactBlockCursor* a, const ImpactBlockCursor* b) { return a->max_impact() < b->max_impact(); });
    // bound_below[i]: the sum of the list maxima of by_bound[0..i-1].
    std::vector<uint64_t> sums(n + 1, 0);
    for (size_t i = 0; i < n; ++i) sums[i + 1] = sums[i] + by_bound[i]->max_impact();
    if (sums[n] > std::numeric_limits<uint32_t>::max()) {
        // Scores would not fit the top k's 32-bit keys (tens of thousands of
        // 16-bit terms): the general algorithm, in doubles, is exact there too.
        const std::vector<double> no_norms;
        return maxscore_or(cursors, no_norms, Bm25({}, 1, 1.0), k, stats);
    }
    std::vector<uint32_t> bound_below(sums.begin(), sums.end());

    QueryStats local;
    ImpactTopK top(k);
    if (n > 0 && k > 0) {
        for (const auto& cursor : cursors) local.postings += cursor.size();
        // Top k full: the sums of the block maxima at the candidate instead.
        std::vector<uint32_t> block_below(n + 1, 0);
        size_t first_essential = 0;  // by_bound[0, first_essential) are non-essential

        while (first_essential < n) {
            uint32_t candidate = kNoDocument;
            for (size_t i = first_essential; i < n; ++i) candidate = std::min(candidate, by_bound[i]->docid());
            if (candidate == kNoDocument) break;
            ++local.documents_considered;
            const int64_t threshold = top.threshold();  // -1 until the top k is full
            const uint32_t* probe_below = bound_below.data();

            if (top.full()) {
                // The block-max bound of every docid from the candidate to `next`, nothing decoded.
                uint32_t bound = 0;
                uint32_t next = kNoDocument;
                for (size_t i = 0; i < n; ++i) {
                    ImpactBlockCursor& cursor = *by_bound[i];
                    if (i >= first_essential && cursor.docid() != candidate) {
                        next = std::min(next, cursor.docid());  // not in its list before that
                        continue;
                    }
                    const uint32_t block_max = cursor.block_max_impact(candidate);
                    bound += block_max;
                    if (i < first_essential) block_below[i + 1] = block_below[i] + block_max;
                    const uint32_t last = cursor.block_last_docid();
                    if (last != kNoDocument) next = std::min(next, last + 1);
                }
                if (int64_t{bound} <= threshold) {
                    for (size_t i = first_essential; i < n; ++i) {
                        if (by_bound[i]->docid() == candidate) by_bound[i]->next_geq(next);
                    }
                    continue;
                }
                probe_below = block_below.data();
            }

            uint32_t score = 0;
            for (size_t i = first_essential; i < n; ++i) {
                ImpactBlockCursor& cursor = *by_bound[i];
                if (cursor.docid() != candidate) continue;
                score += cursor.impact();
                cursor.next();
            }
            bool pruned = false;
            for (size_t i = first_essential; i-- > 0;) {  // largest bound first
                if (int64_t{score} + probe_below[i + 1] <= threshold) {
                    pruned = true;
                    break;
                }
                ImpactBlockCursor& cursor = *by_bound[i];
                cursor.next_geq(candidate);
                if (cursor.docid() == candidate) score += cursor.impact();
            }
            if (pruned) continue;
            ++local.documents_scored;
            if (top.push(candidate, score)) {
                const int64_t raised = top.threshold();
                while (first_essential < n && int64_t{bound_below[first_essential + 1]} <= raised) ++first_essential;
            }
        }
    }
    add_block_counts(cursors, local);
    if (stats) *stats += local;
    return top.take_sorted();
}

}  // namespace invidx
