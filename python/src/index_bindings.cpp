// invidx.Index's compiled half (_invidx.Index): an IndexReader and the
// Searchers of the devices asked for, made on first use. Queries are
// ranked as `invidx search` ranks them (tools/invidx/search.cpp): the same
// Searcher calls for the same device strings; the GIL is released while
// they run.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <oneapi/tbb/task_arena.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "analysis/analyzer.hpp"
#include "devices/gpu_devices.hpp"
#include "invidx/available_cores.hpp"
#include "invidx/device.hpp"
#include "python/src/bindings.hpp"
#include "query/query_cost_model.hpp"
#include "query/query_scheduler.hpp"
#include "query/searcher.hpp"
#include "query/searcher_processors.hpp"
#include "store/ciff_export.hpp"
#include "store/document_store_reader.hpp"
#include "store/index_reader.hpp"
#include "store/query_postings.hpp"

namespace py = pybind11;

namespace invidx::python {
namespace {

// A device string as `invidx search --device` takes it.
struct DeviceChoice {
    Device device = Device::cpu();
    bool automatic = false;  // "auto": the scheduler's (BM25) or the CPU (impact)
};

DeviceChoice parse_device_choice(const std::string& text) {
    DeviceChoice choice;
    choice.automatic = text == "auto";
    const std::optional<Device> named = text == "gpu" ? Device::gpu(0) : parse_device(text);
    if (!named && !choice.automatic) throw_usage_error("device must be cpu, gpu, gpu:N or auto, not '" + text + "'");
    if (named) choice.device = *named;
    return choice;
}

// BM25's k1 and b as `invidx search --k1 --b` checks them.
void check_bm25_parameters(const SearchOptions& options) {
    if (options.k1 && !(std::isfinite(*options.k1) && *options.k1 >= 0.0)) throw_usage_error("k1 must be a finite number >= 0");
    if (options.b && !(*options.b >= 0.0 && *options.b <= 1.0)) throw_usage_error("b must be a number from 0 to 1");
    if ((options.k1 || options.b) && options.scoring == QueryScoring::kImpact)
        throw_usage_error("k1 and b set BM25's parameters; scoring='impact' ranks by the impacts fixed when invidx weight ran");
}

// The query layout as `invidx stats --format json` gives it (None without one).
py::object query_layout_stats(const IndexReader& index) {
    if (!QueryPostings::present(index)) return py::none();
    const QueryPostings layout(index);
    py::dict stats;
    stats["codec"] = std::string(layout.codec().name);
    stats["k1"] = layout.parameters().k1;
    stats["b"] = layout.parameters().b;
    stats["impacts"] = layout.has_impacts();
    stats["impact_bits"] = layout.has_impacts() ? py::object(py::int_(layout.impact_bits())) : py::object(py::none());
    // As `invidx stats --format json`: "tf" where the impacts are the tfs.
    stats["impact_source"] = layout.has_impacts() ? py::object(py::str(layout.impacts_are_tfs() ? "tf" : "bm25"))
                                                  : py::object(py::none());
    return std::move(stats);
}

SearchOptions parse_options(size_t k, const std::string& mode, const std::string& scoring) {
    if (k == 0) throw_usage_error("k must be positive");
    SearchOptions options;
    options.k = k;
    if (mode == "and") {
        options.mode = QueryMode::kAnd;
    } else if (mode == "or") {
        options.mode = QueryMode::kOr;
    } else if (mode == "and-or") {
        options.mode = QueryMode::kAndOr;
    } else {
        throw_usage_error("mode must be and, or or and-or, not '" + mode + "'");
    }
    if (scoring != "bm25" && scoring != "impact") throw_usage_error("scoring must be bm25 or impact, not '" + scoring + "'");
    options.scoring = scoring == "impact" ? QueryScoring::kImpact : QueryScoring::kBm25;
    return options;
}

class PyIndex {
public:
    explicit PyIndex(const std::string& path) : path_(path) {
        py::gil_scoped_release release;
        reader_ = std::make_unique<IndexReader>(path);
    }

    py::dict stats() const {
        const IndexReader& index = *reader_;
        const auto& analysis = index.analysis();
        py::dict stats;
        stats["index"] = path_;
        stats["documents"] = index.num_documents();
        stats["terms"] = index.num_terms();
        stats["postings"] = index.num_postings();
        stats["total_length"] = index.total_length();
        stats["average_length"] = index.average_length();
        stats["runs"] = index.manifest().runs.size();
        stats["positional"] = index.positional();
        stats["stemmer"] = analysis.stemmer;
        stats["stopwords"] = analysis.stopwords_name;
        stats["stopword_count"] = analysis.stopwords.size();
        stats["input_files"] = index.files().size();
        stats["query_layout"] = query_layout_stats(index);
        stats["pre_weighted"] = analysis.pre_weighted;
        if (analysis.pre_weighted) stats["vector_scale"] = analysis.vector_scale;
        return stats;
    }

    // The one term `text` analyzes to; none for a stop word; a UsageError for several.
    std::optional<std::string> analyzed_term(const std::string& text) const {
        Analyzer analyzer(reader_->analysis());
        const std::vector<std::string> terms = analyzer.analyze_query(text);
        if (terms.empty()) return std::nullopt;
        if (terms.size() > 1)
            throw_usage_error("'" + text + "' analyzes to " + std::to_string(terms.size()) +
                              " terms; ask for one word at a time");
        return terms.front();
    }

    py::object term(const std::string& text) const {
        const std::optional<std::string> term = analyzed_term(text);
        if (!term) return py::none();
        const auto found = reader_->find_term(*term);
        if (!found) return py::none();
        const TermInfo info = reader_->term(*found);
        py::dict result;
        result["term"] = *term;
        result["df"] = info.df;
        result["cf"] = info.cf;
        return result;
    }

    py::tuple postings(const std::string& text) const {
        const std::optional<std::string> term = analyzed_term(text);
        run_list::DecodedList list;
        if (term) {
            if (const auto found = reader_->find_term(*term)) {
                py::gil_scoped_release release;
                list = reader_->postings(*found);
            }
        }
        return py::make_tuple(py::array_t<uint32_t>(static_cast<py::ssize_t>(list.docids.size()), list.docids.data()),
                              py::array_t<uint32_t>(static_cast<py::ssize_t>(list.tfs.size()), list.tfs.data()));
    }

    py::dict doc(py::handle key, bool text) const {
        std::optional<uint32_t> docid;
        if (PyLong_Check(key.ptr()) && !PyBool_Check(key.ptr())) {
            const long long number = key.cast<long long>();
            if (number < 0 || static_cast<unsigned long long>(number) >= reader_->num_documents())
                throw py::key_error("no document with docid " + std::to_string(number) + " (the index has " +
                                    std::to_string(reader_->num_documents()) + ")");
            docid = static_cast<uint32_t>(number);
        } else if (PyUnicode_Check(key.ptr())) {
            const std::string name = key.cast<std::string>();
            docid = reader_->find_document_by_name(name);
            if (!docid) throw py::key_error("no document named '" + name + "'");
        } else {
            throw py::type_error("doc() takes a docid (int) or a document name (str)");
        }
        const DocumentInfo info = reader_->document(*docid);
        py::dict result;
        result["docid"] = info.docid;
        result["name"] = info.name;
        result["length"] = info.length;
        result["file_ordinal"] = info.file_ordinal;
        result["file"] = info.file_path;
        result["source_offset"] = info.source_offset;
        if (text) {
            // From the document store (an invidx.Error saying how to build one when absent).
            const StoredDocument stored = DocumentStoreReader(*reader_).document(*docid);
            result["text"] = py::str(PyUnicode_DecodeUTF8(stored.text.data(), static_cast<py::ssize_t>(stored.text.size()), "replace"));
            result["metadata"] = stored.metadata;  // JSON text; the Python layer parses it
        }
        return result;
    }

    py::list search(const std::string& query, size_t k, const std::string& mode, const std::string& scoring,
                    const std::string& device, std::optional<double> k1, std::optional<double> b) {
        SearchOptions options = parse_options(k, mode, scoring);
        options.k1 = k1;
        options.b = b;
        check_bm25_parameters(options);
        const DeviceChoice choice = parse_device_choice(device);
        const Searcher& searcher = searcher_for(choice, options);
        std::vector<SearchResult> results;
        std::vector<std::string> names;
        {
            py::gil_scoped_release release;
            const std::vector<std::string> texts{query};
            if (choice.automatic && options.scoring == QueryScoring::kBm25) {
                // A lone query goes where the untrained cost model prefers (as the CLI's).
                Analyzer analyzer(searcher.index().analysis());
                SearchOptions chosen = options;
                chosen.device = preferred_device(QueryCostModel{}, query_features(searcher, query, options, analyzer),
                                                 searcher.has_gpu());
                results.push_back(searcher.search(query, chosen, analyzer));
            } else {
                SearchOptions chosen = options;
                chosen.device = choice.device.is_gpu() ? QueryDevice::kGpu : QueryDevice::kCpu;
                results = searcher.search_all(texts, chosen);
            }
            for (const auto& hit : results.front().hits) names.push_back(reader_->document(hit.docid).name);
        }
        py::list hits;
        const auto& found = results.front().hits;
        for (size_t i = 0; i < found.size(); ++i) hits.append(py::make_tuple(found[i].docid, names[i], found[i].score));
        return hits;
    }

    // Columns of the result table: per hit its query's position in
    // `texts`, docid, docno, rank (from 0) and score.
    py::dict batch_search(const std::vector<std::string>& texts, size_t k, const std::string& mode,
                          const std::string& scoring, const std::string& device, std::optional<size_t> threads,
                          std::optional<double> k1, std::optional<double> b) {
        SearchOptions options = parse_options(k, mode, scoring);
        options.k1 = k1;
        options.b = b;
        check_bm25_parameters(options);
        const DeviceChoice choice = parse_device_choice(device);
        if (threads && *threads == 0) throw_usage_error("threads must be positive");
        const Searcher& searcher = searcher_for(choice, options);
        std::vector<SearchResult> results;
        std::vector<uint32_t> query_of, docids, ranks;
        std::vector<double> scores;
        std::vector<uint32_t> distinct;           // docids, each once, in first-seen order
        std::vector<std::string> distinct_names;  // their names
        std::vector<uint32_t> name_slot;          // per hit: into distinct
        {
            py::gil_scoped_release release;
            const auto run = [&] {
                if (choice.automatic && options.scoring == QueryScoring::kBm25) {
                    const size_t cores = threads.value_or(available_cores());
                    const size_t cpu_workers = searcher.has_gpu() ? std::max<size_t>(1, cores - 1) : cores;
                    return search_scheduled(searcher, texts, options, cpu_workers, searcher.has_gpu());
                }
                SearchOptions chosen = options;
                if (choice.device.is_gpu()) {
                    chosen.device = QueryDevice::kGpu;
                    return searcher.search_gpu_batch(texts, chosen);
                }
                return searcher.search_all(texts, chosen);
            };
            if (threads) {
                oneapi::tbb::task_arena arena(static_cast<int>(*threads));
                results = arena.execute(run);
            } else {
                results = run();
            }
            size_t total = 0;
            for (const auto& result : results) total += result.hits.size();
            query_of.reserve(total);
            docids.reserve(total);
            ranks.reserve(total);
            scores.reserve(total);
            name_slot.reserve(total);
            std::unordered_map<uint32_t, uint32_t> slot_of_doc;
            slot_of_doc.reserve(std::min<size_t>(total, reader_->num_documents()));
            for (size_t q = 0; q < results.size(); ++q) {
                uint32_t rank = 0;
                for (const auto& hit : results[q].hits) {
                    query_of.push_back(static_cast<uint32_t>(q));
                    docids.push_back(hit.docid);
                    ranks.push_back(rank++);
                    scores.push_back(hit.score);
                    const auto [entry, added] =
                        slot_of_doc.try_emplace(hit.docid, static_cast<uint32_t>(distinct.size()));
                    const uint32_t slot = entry->second;
                    if (added) {
                        distinct.push_back(hit.docid);
                        distinct_names.push_back(reader_->document(hit.docid).name);
                    }
                    name_slot.push_back(slot);
                }
            }
        }
        // One Python string per distinct document, shared by its hits.
        std::vector<py::object> names;
        names.reserve(distinct_names.size());
        for (const auto& name : distinct_names) names.emplace_back(py::str(name));
        py::array docnos(py::dtype("O"), std::vector<py::ssize_t>{static_cast<py::ssize_t>(name_slot.size())});
        auto** cells = static_cast<PyObject**>(docnos.mutable_data());
        for (size_t i = 0; i < name_slot.size(); ++i) {
            PyObject* name = names[name_slot[i]].ptr();
            Py_INCREF(name);
            Py_XDECREF(cells[i]);
            cells[i] = name;
        }
        const auto array = [](const auto& values) {
            using Value = typename std::decay_t<decltype(values)>::value_type;
            return py::array_t<Value>(static_cast<py::ssize_t>(values.size()), values.data());
        };
        py::dict columns;
        columns["query"] = array(query_of);
        columns["docid"] = array(docids);
        columns["docno"] = docnos;
        columns["rank"] = array(ranks);
        columns["score"] = array(scores);
        return columns;
    }

    void export_ciff(const std::string& file, std::optional<std::string> description) const {
        py::gil_scoped_release release;
        const std::string text = description.value_or(default_ciff_description(*reader_));
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        if (!out) throw Error("cannot create the CIFF file", ErrorContext{.node = "", .file = file, .record = {}, .byte_offset = {}});
        invidx::export_ciff(*reader_, out, text);
        out.close();
        if (!out) throw Error("cannot write the CIFF file", ErrorContext{.node = "", .file = file, .record = {}, .byte_offset = {}});
    }

    const std::string& path() const { return path_; }
    uint64_t size() const { return reader_->num_documents(); }

private:
    // The Searcher a device needs, made once (it reads every document's
    // length): a CPU-only one, or one per GPU; for auto with BM25, GPU 0's
    // where there is a GPU.
    const Searcher& searcher_for(const DeviceChoice& choice, const SearchOptions& options) {
        int key = -1;  // the CPU
        if (choice.device.is_gpu()) {
            key = choice.device.ordinal;
        } else if (choice.automatic && options.scoring == QueryScoring::kBm25 && !list_gpus().devices.empty()) {
            key = 0;
        }
        auto& searcher = searchers_[key];
        if (!searcher) {
            std::optional<GpuOptions> gpu;
            if (key >= 0) gpu = GpuOptions{.ordinal = key};
            py::gil_scoped_release release;
            searcher = std::make_unique<Searcher>(*reader_, Bm25Parameters{}, gpu);
        }
        return *searcher;
    }

    std::string path_;
    std::unique_ptr<IndexReader> reader_;
    std::map<int, std::unique_ptr<Searcher>> searchers_;  // by GPU ordinal; -1: CPU only
};

}  // namespace

void register_index(py::module_& module) {
    py::class_<PyIndex>(module, "_Index", "An index opened for reading (see invidx.Index).")
        .def(py::init<const std::string&>(), py::arg("path"))
        .def_property_readonly("path", &PyIndex::path)
        .def("__len__", &PyIndex::size)
        .def("stats", &PyIndex::stats)
        .def("term", &PyIndex::term, py::arg("text"))
        .def("postings", &PyIndex::postings, py::arg("text"))
        .def("doc", &PyIndex::doc, py::arg("key"), py::arg("text") = false)
        .def("search", &PyIndex::search, py::arg("query"), py::arg("k"), py::arg("mode"), py::arg("scoring"),
             py::arg("device"), py::arg("k1") = py::none(), py::arg("b") = py::none())
        .def("batch_search", &PyIndex::batch_search, py::arg("texts"), py::arg("k"), py::arg("mode"),
             py::arg("scoring"), py::arg("device"), py::arg("threads"), py::arg("k1") = py::none(),
             py::arg("b") = py::none())
        .def("export_ciff", &PyIndex::export_ciff, py::arg("path"), py::arg("description") = py::none());
}

}  // namespace invidx::python
