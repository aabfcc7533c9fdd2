#include "query/impact_maxscore_or.hpp"

#include <cstdint>
#include <limits>

#include "invidx/error.hpp"
#include "query/impact_topk.hpp"
#include "query/maxscore_loop.hpp"

namespace invidx {

namespace {

// MaxScore's scoring in integers: contributions (impact times query weight),
// bounds and the threshold are integer sums, exact in any order, so nothing
// is kept per term and a bound that only ties the threshold prunes (the
// newcomer would rank after the kept document, docids arriving in
// increasing order). Score: uint32_t when every sum fits, else uint64_t.
template <class ScoreType>
struct ImpactScoring {
    using Score = ScoreType;
    using Top = BasicImpactTopK<Score>;

    static Score list_bound(const ImpactBlockCursor& cursor) { return static_cast<Score>(cursor.max_impact()); }
    static Score block_bound(ImpactBlockCursor& cursor, uint32_t target) {
        return static_cast<Score>(cursor.block_max_impact(target));
    }
    static bool may_enter(Score bound, int64_t threshold) { return static_cast<int64_t>(bound) > threshold; }  // -1: not full

    static void start_document(uint32_t /*docid*/) {}
    static Score add(ImpactBlockCursor& cursor) { return static_cast<Score>(cursor.impact()); }
    static bool push(Top& top, uint32_t docid, Score score) { return top.push(docid, score); }
    static void end_document() {}
};

}  // namespace

std::vector<ScoredDocument> impact_maxscore_or(std::span<ImpactBlockCursor> cursors, size_t k, QueryStats* stats) {
    uint64_t bound_of_all = 0;
    for (const auto& cursor : cursors) {
        ensure(!__builtin_add_overflow(bound_of_all, cursor.max_impact(), &bound_of_all) &&
                   bound_of_all <= uint64_t{std::numeric_limits<int64_t>::max()},
               "impact_maxscore_or: weighted impacts beyond 63 bits (query/impact_weights.hpp keeps them below 2^53)");
    }
    // Every sum of contributions and bounds the loop forms is at most bound_of_all: none overflows.
    if (bound_of_all <= std::numeric_limits<uint32_t>::max()) {
        ImpactScoring<uint32_t> scoring;
        return maxscore_loop(cursors, scoring, k, stats);
    }
    ImpactScoring<uint64_t> scoring;
    return maxscore_loop(cursors, scoring, k, stats);
}

}  // namespace invidx
