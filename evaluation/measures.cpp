#include "evaluation/measures.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace invidx::evaluation {

namespace {

using Values = std::vector<double>;

long count_ranked(const JudgedRanking& r) { return static_cast<long>(r.levels.size()); }

// Relevant documents among the first `depth` ranks.
long relevant_in_top(const JudgedRanking& r, long depth) {
    const long end = std::min(depth, count_ranked(r));
    long relevant = 0;
    for (long i = 0; i < end; ++i) relevant += r.is_relevant(r.levels[i]) ? 1 : 0;
    return relevant;
}

// Sum of the precisions at the relevant documents among the first `depth`
// ranks; divided by the relevant count it is AP (cut at depth).
double precision_sum(const JudgedRanking& r, long depth) {
    const long end = std::min(depth, count_ranked(r));
    double sum = 0;
    long relevant = 0;
    for (long i = 0; i < end; ++i) {
        if (!r.is_relevant(r.levels[i])) continue;
        ++relevant;
        sum += double(relevant) / double(i + 1);
    }
    return sum;
}

double average_precision(const JudgedRanking& r) {
    return r.relevant == 0 ? 0.0 : precision_sum(r, count_ranked(r)) / double(r.relevant);
}

// DCG of the first `depth` ranks, the gain of a document its judged level
// (none for levels <= 0 and documents not judged).
double dcg(const JudgedRanking& r, long depth) {
    const long end = std::min(depth, count_ranked(r));
    double sum = 0;
    for (long i = 0; i < end; ++i) {
        if (r.levels[i] > 0) sum += double(r.levels[i]) / std::log2(double(i + 2));
    }
    return sum;
}

// DCG of the best ranking of the judged documents, cut at `depth`.
double ideal_dcg(const JudgedRanking& r, long depth) {
    double sum = 0;
    long rank = 0;
    for (long level = long(r.judged_per_level.size()) - 1; level > 0 && rank < depth; --level) {
        for (long n = 0; n < r.judged_per_level[level] && rank < depth; ++n, ++rank) {
            sum += double(level) / std::log2(double(rank + 2));
        }
    }
    return sum;
}

double normalized_dcg(const JudgedRanking& r, long depth) {
    const double ideal = ideal_dcg(r, depth);
    const double found = dcg(r, depth);
    return ideal > 0.0 ? found / ideal : found;
}

// bpref: for each relevant document retrieved, the share of the first R
// judged non-relevant documents ranked above it (R: relevant count);
// documents not judged do not count at all.
double bpref(const JudgedRanking& r) {
    long judged_nonrelevant = 0;
    for (long level = 0; level < std::min<long>(r.relevance_level, long(r.judged_per_level.size())); ++level) {
        judged_nonrelevant += r.judged_per_level[level];
    }
    double sum = 0;
    long nonrelevant_above = 0;
    for (const long level : r.levels) {
        if (level < 0) continue;
        if (!r.is_relevant(level)) {
            ++nonrelevant_above;
            continue;
        }
        sum += nonrelevant_above == 0 ? 1.0
                                      : 1.0 - double(std::min(nonrelevant_above, r.relevant)) /
                                                  double(std::min(judged_nonrelevant, r.relevant));
    }
    return r.relevant == 0 ? sum : sum / double(r.relevant);
}

double reciprocal_rank(const JudgedRanking& r) {
    for (long i = 0; i < count_ranked(r); ++i) {
        if (r.is_relevant(r.levels[i])) return 1.0 / double(i + 1);
    }
    return 0.0;
}

// Interpolated precision at recall levels: the best precision at any rank
// reaching that recall. Levels become relevant-document counts by rounding
// (trec_eval 10; 9.x truncated after adding 0.9).
Values interpolated_precision(const JudgedRanking& r, const std::vector<double>& points) {
    Values values(points.size(), 0.0);
    const long ranked = count_ranked(r);
    if (ranked == 0) return values;
    std::vector<long> needed(points.size());
    for (size_t i = 0; i < points.size(); ++i) needed[i] = std::lround(points[i] * double(r.relevant));
    long point = long(points.size()) - 1;
    while (point >= 0 && needed[point] > r.relevant_retrieved) --point;
    double best = double(r.relevant_retrieved) / double(ranked);
    long relevant_so_far = r.relevant_retrieved;
    for (long rank = ranked; rank > 0 && relevant_so_far > 0; --rank) {
        best = std::max(best, double(relevant_so_far) / double(rank));
        if (!r.is_relevant(r.levels[rank - 1])) continue;
        while (point >= 0 && relevant_so_far == needed[point]) values[point--] = best;
        --relevant_so_far;
    }
    while (point >= 0) values[point--] = best;
    return values;
}

}  // namespace

std::vector<double> topic_values(const ChosenMeasure& chosen, const JudgedRanking& r) {
    switch (chosen.measure) {
        case Measure::kRunid: return {};
        case Measure::kNumQ: return {1.0};
        case Measure::kNumRet: return {double(count_ranked(r))};
        case Measure::kNumRel: return {double(r.relevant)};
        case Measure::kNumRelRet: return {double(r.relevant_retrieved)};
        case Measure::kMap: return {average_precision(r)};
        case Measure::kGmMap: return {std::log(std::max(average_precision(r), kMinGeometricMean))};
        case Measure::kRprec: {
            const long depth = std::min(count_ranked(r), r.relevant);
            return {depth == 0 ? 0.0 : double(relevant_in_top(r, depth)) / double(r.relevant)};
        }
        case Measure::kBpref: return {bpref(r)};
        case Measure::kRecipRank: return {reciprocal_rank(r)};
        case Measure::kIprecAtRecall: return interpolated_precision(r, chosen.recall_points);
        case Measure::kNdcg: {
            // Every ranked document against every judged one: no cutoff.
            const double ideal = ideal_dcg(r, std::numeric_limits<long>::max());
            return {ideal > 0.0 ? dcg(r, count_ranked(r)) / ideal : 0.0};
        }
        default: break;
    }
    Values values;
    for (const long k : chosen.cutoffs) {
        switch (chosen.measure) {
            case Measure::kP: values.push_back(double(relevant_in_top(r, k)) / double(k)); break;
            case Measure::kRecall:
                values.push_back(r.relevant == 0 ? 0.0 : double(relevant_in_top(r, k)) / double(r.relevant));
                break;
            case Measure::kNdcgCut: values.push_back(normalized_dcg(r, k)); break;
            case Measure::kMapCut:
                values.push_back(r.relevant == 0 ? 0.0 : precision_sum(r, k) / double(r.relevant));
                break;
            default: break;
        }
    }
    return values;
}

}  // namespace invidx::evaluation
