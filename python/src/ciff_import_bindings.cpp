// invidx.import_ciff's compiled half (_invidx._import_ciff): the import
// `invidx import-ciff` runs (store/ciff_import.hpp), with the GIL released;
// a bad file raises invidx.InputError with `file` and `offset`.
#include <optional>
#include <string>

#include <pybind11/stl.h>

#include "analysis/collection.hpp"
#include "invidx/error.hpp"
#include "python/src/bindings.hpp"
#include "store/ciff_import.hpp"
#include "store/tf_impacts.hpp"

namespace py = pybind11;

namespace invidx::python {
namespace {

py::dict import_ciff(const std::string& path, const std::string& output, const std::string& analysis,
                     const std::optional<std::string>& impacts, uint64_t run_bytes) {
    CiffImportOptions options;
    try {
        options.analysis = ciff_import_analysis(analysis);
    } catch (const Error& error) {
        throw_usage_error("analysis: " + error.message());
    }
    if (impacts && *impacts != "tf") throw_usage_error("impacts must be None or 'tf', not '" + *impacts + "'");
    if (run_bytes == 0) throw_usage_error("run_bytes must be positive");
    options.term_collection = [](std::string_view term) { return collection_of(term); };
    options.run_bytes = run_bytes;
    if (impacts) options.max_tf = kMaxTfImpact;
    CiffImportSummary summary;
    std::optional<unsigned> impact_bits;
    {
        py::gil_scoped_release release;
        summary = invidx::import_ciff(path, output, options);
        if (impacts) impact_bits = write_tf_impact_layout(output);
    }
    py::dict result;
    result["postings_lists"] = summary.terms;
    result["doc_records"] = summary.documents;
    result["postings"] = summary.postings;
    result["runs"] = summary.runs;
    result["analysis"] = summary.analysis_source;
    result["description"] = py::bytes(summary.header.description).attr("decode")("utf-8", "replace");
    result["canonical"] = summary.canonicality.canonical;
    if (!summary.canonicality.canonical) {
        result["not_canonical"] = py::make_tuple(summary.canonicality.offset, summary.canonicality.reason);
    }
    result["impact_bits"] = impact_bits ? py::object(py::int_(*impact_bits)) : py::object(py::none());
    return result;
}

}  // namespace

void register_ciff_import(py::module_& module) {
    module.def("_import_ciff", &import_ciff, py::arg("path"), py::arg("output"), py::arg("analysis"), py::arg("impacts"),
               py::arg("run_bytes"));
}

}  // namespace invidx::python
