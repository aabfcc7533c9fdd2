// A run against qrels, query by query and over all queries, with
// trec_eval's rules for which queries count:
//  - a query of the run without judgments is skipped;
//  - a judged query the run lacks is skipped too (as trec_eval 9 does;
//    trec_eval 10 stops with an error instead), unless `complete` (-c):
//    then it counts with an empty ranking, scoring 0;
//  - a judged query without relevant documents counts (its AP, P, ... are 0).
// The summary ("all") is the mean over the queries counted, except num_ret,
// num_rel and num_rel_ret (sums; with `complete`, num_rel counts every
// judgment above level 0), num_q (the count) and gm_map (geometric mean).
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "evaluation/measure_set.hpp"
#include "evaluation/qrels.hpp"
#include "evaluation/run_file.hpp"

namespace invidx::evaluation {

struct EvaluationOptions {
    long relevance_level = 1;  // judged at this level or above: relevant (trec_eval -l)
    bool complete = false;     // count judged queries the run lacks (trec_eval -c)
};

// A value as printed: a measure (double), a count (long), or the run id.
struct MeasureValue {
    std::string name;
    std::variant<double, long, std::string> value;
};

struct QueryEvaluation {
    std::string qid;
    std::vector<MeasureValue> values;  // measures reported per query, in MeasureSet order
};

struct Evaluation {
    std::vector<QueryEvaluation> queries;  // the queries counted, by qid in byte order
    std::vector<MeasureValue> summary;     // over all of them ("all")
};

Evaluation evaluate(const Qrels& qrels, const Run& run, const MeasureSet& measures, const EvaluationOptions& options);

}  // namespace invidx::evaluation
