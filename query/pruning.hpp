// The one comparison every dynamic-pruning algorithm makes: can a document
// whose score is at most `bound` still enter a top k whose threshold is θ?
// Bounds are sums of per-term maxima, added in another order than the
// document's score is, so the bound is widened by a relative 1e-10 (far more
// than the rounding of a few additions, far less than any real gap): rounding
// can never prune a document that belongs in the top k, and pruned evaluation
// returns exactly the exhaustive top k.
#pragma once

namespace invidx {

inline constexpr double kBoundSlack = 1.0 + 1e-10;

// Documents arrive in increasing docid order, so a newcomer must score
// strictly above the threshold (-infinity until the top k is full).
inline bool may_enter(double bound, double threshold) { return bound * kBoundSlack > threshold; }

// Integer scores (quantized impacts, ImpactCursor) and their bounds are
// exact sums whatever the order, so no slack: a document whose bound only
// ties the threshold is pruned (it would rank after the kept one). Ties are
// common with integer scores, so this prunes measurably more.
template <class Cursor>
bool may_enter_for(double bound, double threshold) {
    if constexpr (requires(Cursor cursor) { cursor.impact(); }) {
        return bound > threshold;
    } else {
        return may_enter(bound, threshold);
    }
}

}  // namespace invidx
