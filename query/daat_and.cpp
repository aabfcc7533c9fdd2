#include "query/daat_and.hpp"

namespace invidx {

std::vector<ScoredDocument> daat_and(std::span<const ScoredList> lists, std::span<const double> norms, const Bm25& bm25,
                                     size_t k, QueryStats* stats) {
    std::vector<PostingCursor> cursors(lists.begin(), lists.end());  // query order, for summing
    return daat_and(std::span<PostingCursor>(cursors), norms, bm25, k, stats);
}

}  // namespace invidx
