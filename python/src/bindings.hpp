// The parts of the _invidx extension, one concept per file; module.cpp
// calls each one's register function.
#pragma once

#include <pybind11/pybind11.h>

namespace invidx::python {

// invidx.Error and its subclasses, and the one translator from C++ errors.
void register_errors(pybind11::module_& module);
// build() and index_documents().
void register_build(pybind11::module_& module);
// Index: stats, term, postings, doc, search, batch_search, export_ciff.
void register_index(pybind11::module_& module);
// import_ciff().
void register_ciff_import(pybind11::module_& module);
// evaluate(): a run against relevance judgments, as trec_eval scores it.
void register_evaluation(pybind11::module_& module);

// Raises invidx.UsageError (a Python-side misuse: a bad mode, k, device ...).
[[noreturn]] void throw_usage_error(const std::string& message);

}  // namespace invidx::python
