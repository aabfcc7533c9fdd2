// Python documents as JSONL lines: what index_documents pushes into the
// build's DocumentSource. Each document becomes one line {"id": ..,
// "contents": ..} (or, for pre-weighted documents, {"id": .., "vector":
// {term: weight}}) that the framer reads as it reads a line written by
// json.dumps: the same docid, name and text or vector, so the same index.
#pragma once

#include <cstdint>
#include <vector>

#include <pybind11/pybind11.h>

namespace invidx::python {

class DocumentLines {
public:
    // Needs the GIL (as every call here). With `vectors`, documents are
    // pre-weighted: their "vector" is written instead of "contents".
    explicit DocumentLines(bool vectors = false);

    // True for a mapping with a "vector" and no "contents": the documents
    // index_documents takes as pre-weighted when the first one is so.
    static bool is_vector_document(pybind11::handle document);

    // Appends `document`'s line to `block`. A mapping's "id" and "contents"
    // (or "vector") are written (other keys are left out: the framer reads
    // no other); a missing one is left out too, and the build names the
    // document (its record number) when it comes to it. Strings are
    // written as UTF-8 with JSON's escapes, anything else as json.dumps
    // writes it. Raises TypeError for a document that is not a mapping,
    // and invidx::Error naming `position` (the document's place in the
    // iterable, from 0) for one of the other kind (a vector document among
    // text ones, or the reverse).
    void append(pybind11::handle document, uint64_t position, std::vector<char>& block);

private:
    void append_value(pybind11::handle value, std::vector<char>& block);
    pybind11::object dumps_;  // json.dumps
    bool vectors_;
};

}  // namespace invidx::python
