#include "python/src/document_lines.hpp"

#include <cstring>
#include <string>
#include <string_view>

#include "graph/json_string.hpp"
#include "invidx/document_source.hpp"
#include "invidx/error.hpp"

namespace py = pybind11;

namespace invidx::python {
namespace {

void append_text(std::vector<char>& block, std::string_view text) { block.insert(block.end(), text.begin(), text.end()); }

// Whether the mapping `document` has `key` (a Python error raised by its
// lookup other than KeyError propagates).
bool has_key(py::handle document, const char* key) {
    if (PyDict_Check(document.ptr())) return PyDict_GetItemString(document.ptr(), key) != nullptr;
    PyObject* found = PyMapping_GetItemString(document.ptr(), key);  // new
    if (found) {
        Py_DECREF(found);
        return true;
    }
    if (!PyErr_ExceptionMatches(PyExc_KeyError)) throw py::error_already_set();
    PyErr_Clear();
    return false;
}

}  // namespace

DocumentLines::DocumentLines(bool vectors) : dumps_(py::module_::import("json").attr("dumps")), vectors_(vectors) {}

bool DocumentLines::is_vector_document(py::handle document) {
    if (!PyMapping_Check(document.ptr()) || PyUnicode_Check(document.ptr())) return false;
    return has_key(document, "vector") && !has_key(document, "contents");
}

void DocumentLines::append_value(py::handle value, std::vector<char>& block) {
    if (PyUnicode_Check(value.ptr())) {
        Py_ssize_t size = 0;
        const char* utf8 = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
        if (utf8) {
            append_json_string(block, std::string_view(utf8, static_cast<size_t>(size)));
            return;
        }
        PyErr_Clear();  // a lone surrogate: json.dumps escapes it
    }
    const std::string text = py::str(dumps_(value));
    append_text(block, text);
}

void DocumentLines::append(py::handle document, uint64_t position, std::vector<char>& block) {
    if (!PyMapping_Check(document.ptr()) || PyUnicode_Check(document.ptr()))
        throw py::type_error("a document must be a dict with \"id\" and \"contents\" (or \"vector\"), not " +
                             std::string(py::str(py::type::handle_of(document).attr("__name__"))));
    if (is_vector_document(document) != vectors_) {
        // The kind was settled by the first document: an index holds either text or vectors.
        const std::string message =
            vectors_ ? "document " + std::to_string(position) +
                           " is a text document (it has \"contents\" or no \"vector\"), but the first document is "
                           "pre-weighted (a \"vector\" and no \"contents\"): an index holds either text or "
                           "pre-weighted documents, not both"
                     : "document " + std::to_string(position) +
                           " is pre-weighted (a \"vector\" and no \"contents\"), but the first document is a text "
                           "document: an index holds either text or pre-weighted documents, not both";
        throw Error(message, ErrorContext{.node = "", .file = std::string(DocumentSource::kDefaultName),
                                          .record = position, .byte_offset = {}});
    }
    block.push_back('{');
    bool first = true;
    for (const char* key : {"id", vectors_ ? "vector" : "contents"}) {
        py::object value;
        if (PyDict_Check(document.ptr())) {
            PyObject* found = PyDict_GetItemString(document.ptr(), key);  // borrowed
            if (found) value = py::reinterpret_borrow<py::object>(found);
        } else {
            PyObject* found = PyMapping_GetItemString(document.ptr(), key);  // new
            if (found) {
                value = py::reinterpret_steal<py::object>(found);
            } else if (PyErr_ExceptionMatches(PyExc_KeyError)) {
                PyErr_Clear();
            } else {
                throw py::error_already_set();
            }
        }
        if (!value) continue;
        if (!first) block.push_back(',');
        first = false;
        block.push_back('"');
        append_text(block, key);
        append_text(block, "\":");
        append_value(value, block);
    }
    append_text(block, "}\n");
}

}  // namespace invidx::python
