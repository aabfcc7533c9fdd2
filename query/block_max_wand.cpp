#include "query/block_max_wand.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "query/pruning.hpp"

namespace invidx {

std::vector<ScoredDocument> block_max_wand(std::span<BlockCursor> cursors, std::span<const double> norms, const Bm25& bm25,
                                           size_t k, QueryStats* stats) {
    QueryStats local;
    TopK top(k);
    const size_t n = cursors.size();
    if (n > 0 && k > 0) {
        for (const auto& cursor : cursors) local.postings += cursor.size();
        // sorted: the cursors by current docid (exhausted ones, kNoDocument, last).
        std::vector<BlockCursor*> sorted(n);
        for (size_t t = 0; t < n; ++t) sorted[t] = &cursors[t];
        const auto by_docid = [](const BlockCursor* a, const BlockCursor* b) { return a->docid() < b->docid(); };
        std::sort(sorted.begin(), sorted.end(), by_docid);
        // After sorted[i] moved forward, it goes right to its place.
        const auto sift = [&](size_t i) {
            for (; i + 1 < n && sorted[i + 1]->docid() < sorted[i]->docid(); ++i) std::swap(sorted[i], sorted[i + 1]);
        };
        const auto query_position = [&](const BlockCursor* cursor) { return static_cast<size_t>(cursor - cursors.data()); };
        std::vector<double> contributions(n, 0.0);  // by query position

        while (true) {
            const double threshold = top.threshold();
            // The pivot: the first cursor where the list bounds so far can beat θ.
            double bound = 0.0;
            size_t pivot = n;
            for (size_t i = 0; i < n && sorted[i]->docid() != kNoDocument; ++i) {
                bound += sorted[i]->max_score();
                if (may_enter(bound, threshold)) {
                    pivot = i;
                    break;
                }
            }
            if (pivot == n) break;  // no document left can enter
            const uint32_t pivot_docid = sorted[pivot]->docid();
            // Cursors on the same docid after the pivot count for it too.
            while (pivot + 1 < n && sorted[pivot + 1]->docid() == pivot_docid) ++pivot;
            ++local.documents_considered;

            double block_bound = 0.0;
            for (size_t i = 0; i <= pivot; ++i) block_bound += sorted[i]->block_max_score(pivot_docid);
            if (may_enter(block_bound, threshold)) {
                if (sorted[0]->docid() == pivot_docid) {
                    // Every cursor holding the pivot's docid is on it: score it.
                    ++local.documents_scored;
                    const double norm = norms[pivot_docid];
                    for (size_t i = 0; i <= pivot; ++i) {
                        contributions[query_position(sorted[i])] = bm25.score(sorted[i]->idf(), sorted[i]->tf(), norm);
                    }
                    top.push({pivot_docid, sum_in_query_order(contributions)});
                    for (size_t i = 0; i <= pivot; ++i) {
                        contributions[query_position(sorted[i])] = 0.0;
                        sorted[i]->next();
                    }
                    // Insertion sort: a handful of cursors, those past the pivot in order.
                    for (size_t i = 1; i < n; ++i) {
                        for (size_t j = i; j > 0 && sorted[j]->docid() < sorted[j - 1]->docid(); --j) std::swap(sorted[j], sorted[j - 1]);
                    }
                } else {
                    // The last cursor before the pivot that lags moves up to it.
                    size_t lagging = pivot;
                    while (sorted[lagging]->docid() == pivot_docid) --lagging;
                    sorted[lagging]->next_geq(pivot_docid);
                    sift(lagging);
                }
            } else {
                // Nothing from the pivot's docid to the end of the shortest of
                // these blocks, nor before the next cursor, can enter.
                uint32_t next = pivot + 1 < n ? sorted[pivot + 1]->docid() : kNoDocument;
                size_t largest = 0;
                for (size_t i = 0; i <= pivot; ++i) {
                    const uint32_t last = sorted[i]->block_last_docid();  // >= pivot_docid
                    if (last != kNoDocument) next = std::min(next, last + 1);
                    if (sorted[i]->max_score() > sorted[largest]->max_score()) largest = i;
                }
                sorted[largest]->next_geq(next);
                sift(largest);
            }
        }
    }
    add_block_counts(cursors, local);
    if (stats) *stats += local;
    return top.take_sorted();
}

}  // namespace invidx
