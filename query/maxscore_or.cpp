#include "query/maxscore_or.hpp"

namespace invidx {

std::vector<ScoredDocument> maxscore_or(std::span<const ScoredList> lists, std::span<const double> norms,
                                        const Bm25& bm25, size_t k, QueryStats* stats) {
    std::vector<PostingCursor> cursors(lists.begin(), lists.end());
    return maxscore_or(std::span<PostingCursor>(cursors), norms, bm25, k, stats);
}

}  // namespace invidx
