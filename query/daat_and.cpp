#include "query/daat_and.hpp"

#include <algorithm>
#include <numeric>

namespace invidx {

std::vector<ScoredDocument> daat_and(std::span<const ScoredList> lists, std::span<const double> norms, const Bm25& bm25,
                                     size_t k, QueryStats* stats) {
    QueryStats local;
    TopK top(k);
    if (!lists.empty() && k > 0) {
        std::vector<PostingCursor> cursors(lists.begin(), lists.end());  // query order, for summing
        for (const auto& list : lists) local.postings += list.docids.size();
        // Intersection order: shortest list first, so mismatches are found early.
        std::vector<size_t> by_length(cursors.size());
        std::iota(by_length.begin(), by_length.end(), size_t{0});
        std::sort(by_length.begin(), by_length.end(),
                  [&](size_t a, size_t b) { return lists[a].docids.size() < lists[b].docids.size(); });
        PostingCursor& driver = cursors[by_length[0]];
        std::vector<double> contributions(cursors.size(), 0.0);

        uint32_t candidate = driver.docid();
        while (candidate != kNoDocument) {
            // Every other list to >= candidate; a larger docid becomes the new candidate.
            bool all_match = true;
            for (size_t i = 1; i < by_length.size(); ++i) {
                PostingCursor& cursor = cursors[by_length[i]];
                cursor.next_geq(candidate);
                if (cursor.docid() != candidate) {
                    all_match = false;
                    candidate = cursor.docid();
                    break;
                }
            }
            if (!all_match) {
                if (candidate == kNoDocument) break;
                driver.next_geq(candidate);
                candidate = driver.docid();
                continue;
            }
            ++local.documents_considered;
            ++local.documents_scored;
            const double norm = norms[candidate];
            for (size_t t = 0; t < cursors.size(); ++t) contributions[t] = bm25.score(lists[t].idf, cursors[t].tf(), norm);
            top.push({candidate, sum_in_query_order(contributions)});
            driver.next();
            candidate = driver.docid();
        }
    }
    if (stats) *stats += local;
    return top.take_sorted();
}

}  // namespace invidx
