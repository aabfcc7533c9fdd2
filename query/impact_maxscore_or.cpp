#include "query/impact_maxscore_or.hpp"

#include <cstdint>
#include <limits>

#include "query/impact_topk.hpp"
#include "query/maxscore_loop.hpp"
#include "query/maxscore_or.hpp"

namespace invidx {

namespace {

// MaxScore's scoring in integers: contributions, bounds and the threshold
// are uint32 sums of impacts, exact in any order, so nothing is kept per
// term and a bound that only ties the threshold prunes (the newcomer would
// rank after the kept document, docids arriving in increasing order).
struct ImpactScoring {
    using Score = uint32_t;
    using Top = ImpactTopK;

    static uint32_t list_bound(const ImpactBlockCursor& cursor) { return cursor.max_impact(); }
    static uint32_t block_bound(ImpactBlockCursor& cursor, uint32_t target) { return cursor.block_max_impact(target); }
    static bool may_enter(uint32_t bound, int64_t threshold) { return int64_t{bound} > threshold; }  // -1: not full

    static void start_document(uint32_t /*docid*/) {}
    static uint32_t add(ImpactBlockCursor& cursor) { return cursor.impact(); }
    static bool push(ImpactTopK& top, uint32_t docid, uint32_t score) { return top.push(docid, score); }
    static void end_document() {}
};

}  // namespace

std::vector<ScoredDocument> impact_maxscore_or(std::span<ImpactBlockCursor> cursors, size_t k, QueryStats* stats) {
    uint64_t bound_of_all = 0;
    for (const auto& cursor : cursors) bound_of_all += cursor.max_impact();
    if (bound_of_all > std::numeric_limits<uint32_t>::max()) {
        // Scores would not fit the top k's 32-bit keys (tens of thousands of
        // 16-bit terms): the general algorithm, in doubles, is exact there too.
        const std::vector<double> no_norms;
        return maxscore_or(cursors, no_norms, Bm25({}, 1, 1.0), k, stats);
    }
    // Every sum of impacts and bounds the loop forms is at most bound_of_all: none overflows.
    ImpactScoring scoring;
    return maxscore_loop(cursors, scoring, k, stats);
}

}  // namespace invidx
