// C++ errors as Python exceptions, in one translator:
//   invidx::ConfigError             -> invidx.ConfigError (pointer)
//   invidx::FormatError             -> invidx.FormatError (file): a damaged index
//   invidx::QueryError              -> invidx.UsageError: the query must change
//   invidx::Interrupted             -> KeyboardInterrupt
//   other invidx::Error with a file, record or offset -> invidx.InputError
//   any other invidx::Error         -> invidx.Error
//   std::bad_alloc                  -> MemoryError
//   any other std::exception        -> invidx.Error
// Every exception carries node, file, record and offset (None when unknown).
#include <new>
#include <optional>
#include <stdexcept>
#include <string>

#include "invidx/error.hpp"
#include "python/src/bindings.hpp"
#include "query/query_error.hpp"

namespace py = pybind11;

namespace invidx::python {
namespace {

struct ExceptionTypes {
    PyObject* error = nullptr;
    PyObject* config = nullptr;
    PyObject* input = nullptr;
    PyObject* format = nullptr;
    PyObject* usage = nullptr;
};

// Created once with the module and never freed: the interpreter holds them.
ExceptionTypes& types() {
    static ExceptionTypes kinds;
    return kinds;
}

PyObject* new_type(py::module_& module, const char* name, PyObject* bases, const char* doc) {
    const std::string qualified = std::string("invidx.") + name;
    PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
    if (!type) throw py::error_already_set();
    // None until an instance says otherwise (an error raised from Python).
    for (const char* attribute : {"node", "file", "record", "offset", "pointer"})
        PyObject_SetAttrString(type, attribute, Py_None);
    module.add_object(name, py::handle(type));
    return type;
}

py::object optional_number(const std::optional<uint64_t>& value) {
    return value ? py::object(py::int_(*value)) : py::object(py::none());
}

py::object optional_text(const std::string& text) {
    return text.empty() ? py::object(py::none()) : py::object(py::str(text));
}

// Raises `type` with the message and the error's context as attributes.
void raise(PyObject* type, const std::string& text, const ErrorContext& context, const std::string& pointer = {}) {
    py::object exception = py::reinterpret_steal<py::object>(PyObject_CallFunction(type, "s", text.c_str()));
    if (!exception) return;  // the call set its own Python error
    exception.attr("node") = optional_text(context.node);
    exception.attr("file") = optional_text(context.file);
    exception.attr("record") = optional_number(context.record);
    exception.attr("offset") = optional_number(context.byte_offset);
    exception.attr("pointer") = optional_text(pointer);
    PyErr_SetObject(type, exception.ptr());
}

void translate(std::exception_ptr pointer) {
    try {
        std::rethrow_exception(pointer);
    } catch (const Interrupted&) {
        PyErr_SetNone(PyExc_KeyboardInterrupt);
    } catch (const ConfigError& error) {
        raise(types().config, error.what(), error.context(), error.json_pointer());
    } catch (const FormatError& error) {
        raise(types().format, error.what(), error.context());
    } catch (const QueryError& error) {
        raise(types().usage, error.what(), error.context());
    } catch (const Error& error) {
        const ErrorContext& context = error.context();
        const bool located = !context.file.empty() || context.record || context.byte_offset;
        raise(located ? types().input : types().error, error.what(), context);
    } catch (const std::bad_alloc&) {
        PyErr_NoMemory();
    } catch (const py::error_already_set&) {
        throw;  // pybind11's own: the Python error it holds goes back as it was
    } catch (const py::builtin_exception&) {
        throw;
    } catch (const std::exception& error) {
        raise(types().error, error.what(), ErrorContext{});
    }
}

}  // namespace

void throw_usage_error(const std::string& message) {
    raise(types().usage, message, ErrorContext{});
    throw py::error_already_set();
}

void register_errors(py::module_& module) {
    ExceptionTypes& kinds = types();
    kinds.error = new_type(module, "Error", PyExc_Exception,
                           "Base of invidx's errors. Attributes (None when unknown): node (the flow-graph node), "
                           "file, record (0-based record in the file), offset (byte offset), pointer (JSON pointer "
                           "of a configuration key).");
    kinds.config = new_type(module, "ConfigError", kinds.error,
                            "A bad pipeline description or override; `pointer` names the key, e.g. '/memory/tokens'.");
    kinds.input = new_type(module, "InputError", kinds.error,
                           "Bad or unreadable input: `file`, `record` (for index_documents: the document's position "
                           "in the iterable, from 0) and `offset` say where.");
    kinds.format = new_type(module, "FormatError", kinds.error,
                            "A damaged or incompatible index on disk; `file` names the index file.");
    py::tuple usage_bases = py::make_tuple(py::handle(kinds.error), py::handle(PyExc_ValueError));
    kinds.usage = new_type(module, "UsageError", usage_bases.ptr(),
                           "A call that cannot work as written: a bad argument (mode, k, device, ...) or a query "
                           "the index cannot answer (a phrase without positions). Also a ValueError.");
    py::register_exception_translator(translate);
}

}  // namespace invidx::python
