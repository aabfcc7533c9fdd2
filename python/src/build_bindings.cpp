// build() and index_documents(): the configuration is made here from a file
// or a JSON text (a dict, dumped by __init__.py) and "key=value" overrides
// as invidx-run's --set takes them; the build runs on a thread of its own
// (build_runner.hpp) while this thread waits, or, for index_documents,
// feeds it the documents.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "invidx/document_source.hpp"
#include "invidx/error.hpp"
#include "invidx/pipeline.hpp"
#include "invidx/pre_weighted_analysis.hpp"
#include "python/src/bindings.hpp"
#include "python/src/build_runner.hpp"
#include "python/src/document_lines.hpp"

#include <pybind11/stl.h>

namespace py = pybind11;

namespace invidx::python {
namespace {

PipelineConfig make_config(const std::optional<std::string>& path, const std::optional<std::string>& json_text,
                           const std::vector<std::string>& overrides) {
    if (path) return PipelineConfig::from_file(*path, overrides);
    nlohmann::json json;
    try {
        json = nlohmann::json::parse(json_text.value_or("{}"));
    } catch (const nlohmann::json::exception& error) {
        throw ConfigError("", std::string("the configuration is not valid JSON: ") + error.what());
    }
    return PipelineConfig::from_json(std::move(json), overrides);
}

py::object build(const std::optional<std::string>& path, const std::optional<std::string>& json_text,
                 const std::vector<std::string>& overrides, py::object progress) {
    PipelineConfig config = make_config(path, json_text, overrides);
    BuildRunner runner(std::move(progress));
    runner.start([config = std::move(config)](const RunOptions& options) {
        Pipeline pipeline(config);
        return pipeline.run(options);
    });
    runner.wait();
    return runner.result();
}

// Hands `block` to the build, waiting for room in slices of 100 ms with
// the GIL released, checking signals between them. False when the build
// takes no more documents (it ended) or a signal raised.
bool push_block(DocumentSource& documents, std::vector<char>& block, BuildRunner& runner) {
    for (;;) {
        DocumentSource::PushResult pushed;
        {
            py::gil_scoped_release release;
            pushed = documents.push_for(block, std::chrono::milliseconds(100));
        }
        if (pushed == DocumentSource::PushResult::kPushed) return true;
        if (pushed == DocumentSource::PushResult::kClosed) return false;
        if (runner.check_signals()) return false;
    }
}

// The iterator's next item; a null object at its end.
py::object next_document(const py::iterator& iterator) {
    py::object item = py::reinterpret_steal<py::object>(PyIter_Next(iterator.ptr()));
    if (!item && PyErr_Occurred()) throw py::error_already_set();
    return item;
}

// The analysis of a build whose documents are pre-weighted, as an input
// naming jsonvector makes it (docs/PIPELINE.md, "Pre-weighted documents").
void make_pre_weighted_for_documents(PipelineConfig& config) {
    if (config.analysis.positions) {
        throw ConfigError("/positions", "the first document is pre-weighted (a \"vector\" and no \"contents\"), and "
                                        "pre-weighted documents have no positions: leave \"positions\" out or false");
    }
    make_pre_weighted(config.analysis);
}

py::object index_documents(py::iterable docs, const std::optional<std::string>& path,
                           const std::optional<std::string>& json_text, const std::vector<std::string>& overrides,
                           py::object progress, size_t block_bytes, size_t max_blocks) {
    if (block_bytes == 0 || max_blocks == 0) throw_usage_error("block_bytes and max_blocks must be positive");
    PipelineConfig config = make_config(path, json_text, overrides);
    // The first document settles the kind: one with a "vector" and no
    // "contents" makes the build pre-weighted, as the jsonvector format does.
    const py::iterator iterator = py::iter(docs);
    py::object document = next_document(iterator);
    const bool vectors = document && DocumentLines::is_vector_document(document);
    if (vectors) make_pre_weighted_for_documents(config);
    DocumentSource documents(max_blocks);
    BuildRunner runner(std::move(progress));
    runner.start([config = std::move(config), &documents](const RunOptions& options) {
        return build_from_documents(config, documents, options);
    });
    // This thread produces: each document one JSONL line, the lines in
    // blocks of about block_bytes, each pushed as it fills.
    try {
        DocumentLines lines(vectors);
        std::vector<char> block;
        block.reserve(block_bytes + 4096);
        bool open = true;
        uint64_t since_check = 0;
        for (uint64_t position = 0; document; ++position, document = next_document(iterator)) {
            lines.append(document, position, block);
            if (block.size() >= block_bytes) {
                open = push_block(documents, block, runner);
                if (!open) break;
                block.clear();
                block.reserve(block_bytes + 4096);
            } else if (++since_check >= 4096) {
                // A generator of C-made items may never run a signal handler.
                since_check = 0;
                if (runner.check_signals()) break;
            }
        }
        if (open && !runner.has_python_error() && !block.empty()) push_block(documents, block, runner);
    } catch (py::error_already_set& error) {
        runner.record(std::move(error));  // the iterable raised: stop the build, raise this
    } catch (...) {
        runner.stop();
        documents.abandon();
        runner.wait();
        throw;  // a C++ error of this thread's
    }
    documents.finish();
    runner.wait();
    return runner.result();
}

}  // namespace

void register_build(py::module_& module) {
    module.def("_build", &build, py::arg("config_path"), py::arg("config_json"), py::arg("overrides"),
               py::arg("progress"),
               "Builds an index (see invidx.build); the configuration from a file or a JSON text.");
    module.def("_index_documents", &index_documents, py::arg("docs"), py::arg("config_path"),
               py::arg("config_json"), py::arg("overrides"), py::arg("progress"), py::arg("block_bytes") = 1 << 20,
               py::arg("max_blocks") = 4,
               "Builds an index from an iterable of documents (see invidx.index_documents).");
}

}  // namespace invidx::python
