#include "query/exhaustive_or.hpp"

#include <algorithm>

namespace invidx {

std::vector<ScoredDocument> exhaustive_or(std::span<const ScoredList> lists, std::span<const double> norms,
                                          const Bm25& bm25, size_t k, QueryStats* stats) {
    QueryStats local;
    TopK top(k);
    if (k > 0) {
        std::vector<PostingCursor> cursors(lists.begin(), lists.end());
        for (const auto& list : lists) local.postings += list.docids.size();
        std::vector<double> contributions(cursors.size(), 0.0);
        auto smallest = [&] {
            uint32_t docid = kNoDocument;
            for (const auto& cursor : cursors) docid = std::min(docid, cursor.docid());
            return docid;
        };
        for (uint32_t docid = smallest(); docid != kNoDocument; docid = smallest()) {
            const double norm = norms[docid];
            for (size_t t = 0; t < cursors.size(); ++t) {
                if (cursors[t].docid() == docid) {
                    contributions[t] = bm25.score(lists[t].idf, cursors[t].tf(), norm);
                    cursors[t].next();
                } else {
                    contributions[t] = 0.0;
                }
            }
            ++local.documents_considered;
            ++local.documents_scored;
            top.push({docid, sum_in_query_order(contributions)});
        }
    }
    if (stats) *stats += local;
    return top.take_sorted();
}

}  // namespace invidx
