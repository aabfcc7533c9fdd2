// The measures on one query, computed as trec_eval computes them (its
// m_*.c files are the reference): binary measures count a document as
// relevant at the relevance level or above; ndcg and ndcg_cut use the judged
// level itself as the gain; documents the qrels do not judge are not
// relevant, except that bpref skips them.
#pragma once

#include <vector>

#include "evaluation/judged_ranking.hpp"
#include "evaluation/measure_set.hpp"

namespace invidx::evaluation {

// The per-query values of a chosen measure, one per value_names() entry.
// num_q is 1; runid has none; gm_map gives log(max(AP, 0.00001)), which the
// summary averages and exponentiates (a geometric mean).
std::vector<double> topic_values(const ChosenMeasure& chosen, const JudgedRanking& ranking);

// The floor trec_eval puts under AP before taking gm_map's logarithm.
inline constexpr double kMinGeometricMean = 0.00001;

}  // namespace invidx::evaluation
