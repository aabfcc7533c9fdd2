// The compiled half of the `invidx` package; python/invidx/__init__.py is
// the public face (docstrings, DataFrames) and re-exports from here.
#include "python/src/bindings.hpp"

PYBIND11_MODULE(_invidx, module) {
    module.doc() = "The compiled core of the invidx package (use `import invidx`).";
    invidx::python::register_errors(module);
    invidx::python::register_build(module);
    invidx::python::register_index(module);
    invidx::python::register_ciff_import(module);
    invidx::python::register_evaluation(module);
}
