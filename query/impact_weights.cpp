#include "query/impact_weights.hpp"

#include <algorithm>
#include <string>

#include "invidx/error.hpp"
#include "query/query_error.hpp"

namespace invidx {

ImpactWeights impact_weights(const QueryPlan& plan, unsigned impact_bits) {
    const auto& terms = plan.terms.terms;
    ensure(plan.query_weights.empty() || plan.query_weights.size() == terms.size(),
           "impact_weights: the plan has " + std::to_string(plan.query_weights.size()) + " query weights for " +
               std::to_string(terms.size()) + " terms");
    ensure(impact_bits >= 1 && impact_bits <= 16, "impact_weights: impact bits out of range");
    constexpr double kScale = double{uint64_t{1} << kImpactWeightFractionBits};
    const uint64_t max_impact = (uint64_t{1} << impact_bits) - 1;
    ImpactWeights out;
    out.by_term.resize(terms.size());
    uint64_t common = 0;  // OR of every weight: its trailing zeros divide all of them
    uint64_t most = 0;    // the largest possible score, before reduction
    for (size_t i = 0; i < terms.size(); ++i) {
        const double w = plan.query_weights.empty() ? 1.0 : plan.query_weights[i];
        if (!std::isfinite(w) || w < 0.0) {
            throw QueryError("impact scoring needs query weights >= 0: term '" + terms[i].term + "' has weight " +
                             std::to_string(w));
        }
        // Scaling by 256 is exact in a double; llround rounds halves away from zero.
        const double scaled = w * kScale;
        // Below 2^32: then q < 2^40 and q · max_impact < 2^56, so `most` cannot overflow.
        if (w >= 4294967296.0) {
            throw QueryError("query weight " + std::to_string(w) + " of term '" + terms[i].term +
                             "' is too large for impact scoring (it must be below 2^32)");
        }
        const auto q = static_cast<uint64_t>(std::llround(scaled));
        out.by_term[i] = q;
        common |= q;
        if (terms[i].index) {
            most += q * max_impact;
            if (most > kMaxExactImpactScore << kImpactWeightFractionBits) {
                throw QueryError("query weights too large for exact impact scores: with term '" + terms[i].term +
                                 "' a document could score above 2^53 / 256");
            }
        }
    }
    // The largest j <= 8 with 2^j dividing every weight (all zero: 8).
    unsigned reduce = kImpactWeightFractionBits;
    if (common != 0) reduce = std::min<unsigned>(reduce, static_cast<unsigned>(__builtin_ctzll(common)));
    for (uint64_t& q : out.by_term) q >>= reduce;
    out.scale_bits = kImpactWeightFractionBits - reduce;
    if ((most >> reduce) > kMaxExactImpactScore) {
        throw QueryError("query weights too large for exact impact scores: a document could score above 2^53");
    }
    return out;
}

}  // namespace invidx
