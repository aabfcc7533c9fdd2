#include "evaluation/evaluate.hpp"

#include <cmath>

#include "evaluation/judged_ranking.hpp"
#include "evaluation/measures.hpp"

namespace invidx::evaluation {

namespace {

bool is_count(Measure m) {
    return m == Measure::kNumQ || m == Measure::kNumRet || m == Measure::kNumRel || m == Measure::kNumRelRet;
}

MeasureValue make_value(const std::string& name, Measure m, double value) {
    if (is_count(m)) return {.name = name, .value = std::lround(value)};
    return {.name = name, .value = value};
}

// Judgments above level 0 in the whole qrels: trec_eval's num_rel under -c.
long positive_judgments(const Qrels& qrels) {
    long count = 0;
    for (const auto& [qid, judgments] : qrels.topics) {
        for (const auto& [docno, level] : judgments) count += level > 0 ? 1 : 0;
    }
    return count;
}

}  // namespace

Evaluation evaluate(const Qrels& qrels, const Run& run, const MeasureSet& measures, const EvaluationOptions& options) {
    Evaluation evaluation;
    // Per chosen measure, the sum of each of its values over the queries.
    std::vector<std::vector<double>> sums(measures.measures.size());
    for (size_t m = 0; m < measures.measures.size(); ++m) sums[m].assign(value_names(measures.measures[m]).size(), 0.0);

    const std::vector<RetrievedDocument> nothing_retrieved;
    for (const auto& [qid, judgments] : qrels.topics) {
        const auto ranked = run.topics.find(qid);
        if (ranked == run.topics.end() && !options.complete) continue;
        const auto& retrieved = ranked == run.topics.end() ? nothing_retrieved : ranked->second;
        const JudgedRanking ranking = judge_ranking(retrieved, judgments, options.relevance_level);

        QueryEvaluation query{.qid = qid, .values = {}};
        for (size_t m = 0; m < measures.measures.size(); ++m) {
            const ChosenMeasure& chosen = measures.measures[m];
            const std::vector<double> values = topic_values(chosen, ranking);
            const std::vector<std::string> names = value_names(chosen);
            for (size_t v = 0; v < values.size(); ++v) {
                sums[m][v] += values[v];
                if (reported_per_query(chosen.measure)) query.values.push_back(make_value(names[v], chosen.measure, values[v]));
            }
        }
        evaluation.queries.push_back(std::move(query));
    }

    const double counted = double(evaluation.queries.size());
    for (size_t m = 0; m < measures.measures.size(); ++m) {
        const ChosenMeasure& chosen = measures.measures[m];
        const std::vector<std::string> names = value_names(chosen);
        if (chosen.measure == Measure::kRunid) {
            evaluation.summary.push_back({.name = names[0], .value = run.run_id});
            continue;
        }
        for (size_t v = 0; v < names.size(); ++v) {
            double value = sums[m][v];
            switch (chosen.measure) {
                case Measure::kNumQ:
                case Measure::kNumRet:
                case Measure::kNumRelRet: break;
                case Measure::kNumRel:
                    if (options.complete) value = double(positive_judgments(qrels));
                    break;
                case Measure::kGmMap:
                    if (counted > 0) value = std::exp(value / counted);
                    break;
                default:
                    if (counted > 0) value /= counted;
                    break;
            }
            evaluation.summary.push_back(make_value(names[v], chosen.measure, value));
        }
    }
    return evaluation;
}

}  // namespace invidx::evaluation
