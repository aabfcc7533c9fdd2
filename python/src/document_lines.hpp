// Python documents as JSONL lines: what index_documents pushes into the
// build's DocumentSource. Each document becomes one line {"id": ..,
// "contents": ..} that the jsonl framer reads as it reads a line written by
// json.dumps: the same docid, name and text, so the same index.
#pragma once

#include <cstdint>
#include <vector>

#include <pybind11/pybind11.h>

namespace invidx::python {

class DocumentLines {
public:
    // Needs the GIL (as every call here).
    DocumentLines();

    // Appends `document`'s line to `block`. A mapping's "id" and
    // "contents" are written (other keys are left out: the framer reads
    // no other); a missing one is left out too, and the build names the
    // document (its record number) when it comes to it. Strings are
    // written as UTF-8 with JSON's escapes, anything else as json.dumps
    // writes it. Raises TypeError for a document that is not a mapping.
    void append(pybind11::handle document, std::vector<char>& block);

private:
    void append_value(pybind11::handle value, std::vector<char>& block);
    pybind11::object dumps_;  // json.dumps
};

}  // namespace invidx::python
