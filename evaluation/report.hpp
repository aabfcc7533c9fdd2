// An evaluation printed as trec_eval prints it: one line per value,
// "measure<TAB>qid<TAB>value", the measure name left-justified in 22
// columns, numbers with 4 decimals, counts as integers; the per-query lines
// (-q) first, then the "all" lines. Or the same as one JSON object.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "evaluation/evaluate.hpp"

namespace invidx::evaluation {

std::string trec_eval_text(const Evaluation& evaluation, bool per_query);

// {"queries": {qid: {measure: value, ...}, ...} (with per_query),
//  "all": {measure: value, ...}}; numbers unrounded.
nlohmann::json evaluation_json(const Evaluation& evaluation, bool per_query);

}  // namespace invidx::evaluation
