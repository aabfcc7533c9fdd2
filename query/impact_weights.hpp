// Query weights for impact scoring (`search --scoring impact`), as
// integers, so that the CPU and the GPU agree to the bit (docs/QUERY.md,
// "Weighted queries and impacts").
//
// Each term's query weight w (QueryPlan::query_weights: 1 for plain text,
// `term^w`, a JSON vector query's value) is rounded to the nearest multiple
// of 1/256, ties away from zero: q = round(w · 256). A document's score is
//     Σ over the query's terms it holds of q · impact, divided by 256.
// The sum is of integers, exact in any order: in 32 or 64-bit integers on
// the CPU, in doubles on the GPU (exact below 2^53, which the weights are
// checked to keep), and the division by a power of two is exact too. So
// plain text scores the plain sum of impacts, integer weights score
// Σ w · impact exactly, and both devices return the same top k, scores and
// tie order (higher score, then smaller docid).
//
// Stored reduced: q / 2^j for the largest j <= 8 that divides every q, and
// scale_bits = 8 − j, so the sums of plain text and integer weights stay as
// small as the impacts' own (the 32-bit fast paths); the score is the same.
//
// Block-max and list bounds scale by the same integers (ImpactBlockCursor's
// weight, impact_taat_or's weights), so pruning stays exact.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "query/query_plan.hpp"

namespace invidx {

inline constexpr unsigned kImpactWeightFractionBits = 8;  // weights are multiples of 1/256
// The largest integer score: sums stay exact in a double (the GPU's accumulators).
inline constexpr uint64_t kMaxExactImpactScore = (uint64_t{1} << 53) - 1;

struct ImpactWeights {
    std::vector<uint64_t> by_term;  // per plan term: its integer weight (0: adds nothing)
    unsigned scale_bits = 0;        // a score is its integer sum / 2^scale_bits

    // The score of a document whose integer sum is `sum`.
    double score(double sum) const { return std::ldexp(sum, -static_cast<int>(scale_bits)); }
};

// The integer weights of `plan`'s terms for a layout of `impact_bits`-bit
// impacts. An empty query_weights means 1 for every term. A weight that is
// negative, not finite or 2^32 or more, or weights whose largest possible score
// (Σ q · (2^impact_bits − 1) over the terms in the index) is above
// kMaxExactImpactScore, is a QueryError naming the term.
ImpactWeights impact_weights(const QueryPlan& plan, unsigned impact_bits);

}  // namespace invidx
