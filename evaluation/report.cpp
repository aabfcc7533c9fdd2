#include "evaluation/report.hpp"

#include <cstdio>

namespace invidx::evaluation {

namespace {

void append_line(std::string& out, const MeasureValue& value, const std::string& qid) {
    char number[64];
    std::string text;
    if (const auto* real = std::get_if<double>(&value.value)) {
        std::snprintf(number, sizeof number, "%6.4f", *real);
        text = number;
    } else if (const auto* count = std::get_if<long>(&value.value)) {
        text = std::to_string(*count);
    } else {
        text = std::get<std::string>(value.value);
    }
    // printf's "%-22s": padded to 22 columns, never cut.
    const std::string padding(value.name.size() < 22 ? 22 - value.name.size() : 0, ' ');
    out += value.name + padding + "\t" + qid + "\t" + text + "\n";
}

nlohmann::json values_json(const std::vector<MeasureValue>& values) {
    nlohmann::json object = nlohmann::json::object();
    for (const auto& value : values) {
        std::visit([&](const auto& v) { object[value.name] = v; }, value.value);
    }
    return object;
}

}  // namespace

std::string trec_eval_text(const Evaluation& evaluation, bool per_query) {
    std::string out;
    if (per_query) {
        for (const auto& query : evaluation.queries) {
            for (const auto& value : query.values) append_line(out, value, query.qid);
        }
    }
    for (const auto& value : evaluation.summary) append_line(out, value, "all");
    return out;
}

nlohmann::json evaluation_json(const Evaluation& evaluation, bool per_query) {
    nlohmann::json out = nlohmann::json::object();
    if (per_query) {
        nlohmann::json queries = nlohmann::json::object();
        for (const auto& query : evaluation.queries) queries[query.qid] = values_json(query.values);
        out["queries"] = std::move(queries);
    }
    out["all"] = values_json(evaluation.summary);
    return out;
}

}  // namespace invidx::evaluation
