// invidx.evaluate(): a run scored against relevance judgments, as
// `invidx eval` and trec_eval score it (evaluation/, docs/QUERY.md
// "Evaluating runs"). Qrels and run come as file paths or as dicts.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "evaluation/evaluate.hpp"
#include "evaluation/input_error.hpp"
#include "python/src/bindings.hpp"

namespace py = pybind11;

namespace invidx::python {
namespace {

// A file the evaluation cannot use: invidx.InputError, its message naming
// the file and line.
[[noreturn]] void raise_input_error(const evaluation::InputError& error) {
    const py::object type = py::module_::import("invidx._invidx").attr("InputError");
    PyErr_SetString(type.ptr(), error.what());
    throw py::error_already_set();
}

bool is_path(const py::handle& value) {
    return py::isinstance<py::str>(value) || py::isinstance<py::bytes>(value) ||
           py::hasattr(value, "__fspath__");
}

std::string fspath(const py::handle& value) {
    return py::str(py::module_::import("os").attr("fsdecode")(value));
}

// {qid: {docno: level}} or a qrels file.
evaluation::Qrels to_qrels(const py::object& qrels) {
    if (is_path(qrels)) return evaluation::read_qrels(fspath(qrels));
    if (!py::isinstance<py::dict>(qrels)) throw_usage_error("qrels must be a path or a dict {qid: {docno: level}}");
    evaluation::Qrels out;
    for (const auto& [qid, judgments] : qrels.cast<py::dict>()) {
        if (!py::isinstance<py::dict>(judgments)) throw_usage_error("qrels[" + std::string(py::str(qid)) + "] must be a dict {docno: level}");
        auto& topic = out.topics[py::str(qid)];
        for (const auto& [docno, level] : judgments.cast<py::dict>()) topic[py::str(docno)] = py::int_(py::reinterpret_borrow<py::object>(level)).cast<long>();
    }
    return out;
}

// {qid: {docno: score}} or a run file.
evaluation::Run to_run(const py::object& run) {
    if (is_path(run)) return evaluation::read_run(fspath(run));
    if (!py::isinstance<py::dict>(run)) throw_usage_error("run must be a path or a dict {qid: {docno: score}}");
    evaluation::Run out;
    for (const auto& [qid, scores] : run.cast<py::dict>()) {
        if (!py::isinstance<py::dict>(scores)) throw_usage_error("run[" + std::string(py::str(qid)) + "] must be a dict {docno: score}");
        auto& topic = out.topics[py::str(qid)];
        for (const auto& [docno, score] : scores.cast<py::dict>()) {
            topic.push_back({.docno = py::str(docno), .score = py::float_(py::reinterpret_borrow<py::object>(score)).cast<double>()});
        }
    }
    return out;
}

py::dict values_dict(const std::vector<evaluation::MeasureValue>& values) {
    py::dict out;
    for (const auto& value : values) {
        std::visit([&](const auto& v) { out[py::str(value.name)] = py::cast(v); }, value.value);
    }
    return out;
}

py::dict evaluate(const py::object& qrels_source, const py::object& run_source,
                  const std::optional<std::vector<std::string>>& measures, bool complete, long relevance_level) {
    if (relevance_level < 1) throw_usage_error("relevance_level must be a positive integer");
    evaluation::MeasureSet set;
    try {
        set = measures ? evaluation::parse_measures(*measures) : evaluation::official_measures();
    } catch (const std::invalid_argument& error) {
        throw_usage_error(error.what());
    }
    evaluation::Qrels qrels;
    evaluation::Run run;
    try {
        qrels = to_qrels(qrels_source);
        run = to_run(run_source);
    } catch (const evaluation::InputError& error) {
        raise_input_error(error);
    }
    const auto result = evaluation::evaluate(qrels, run, set, {.relevance_level = relevance_level, .complete = complete});
    py::dict queries;
    for (const auto& query : result.queries) queries[py::str(query.qid)] = values_dict(query.values);
    py::dict out;
    out["all"] = values_dict(result.summary);
    out["queries"] = queries;
    return out;
}

}  // namespace

void register_evaluation(py::module_& module) {
    module.def("_evaluate", &evaluate, py::arg("qrels"), py::arg("run"), py::arg("measures"), py::arg("complete"),
               py::arg("relevance_level"));
}

}  // namespace invidx::python
