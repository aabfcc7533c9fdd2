// Export to CIFF, the Common Index File Format (github.com/osirrc/ciff,
// CommonIndexFileFormat.proto; CONTENT.md §9): a length-delimited Header, one
// PostingsList per term in byte-wise term order, one DocRecord per document.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>

#include "store/index_reader.hpp"

namespace invidx {

// Throws invidx::Error when a count or value does not fit CIFF's int32
// fields, or when the stream fails.
void export_ciff(const IndexReader& index, std::ostream& out, std::string description);

// export_ciff into `file`, followed through symbolic links and written whole
// or not at all (ReplacingFile: a temporary file beside it, synced, renamed
// over it; on any failure it is removed and an existing file is untouched).
// A file inside an index directory (enclosing_index) is refused before
// anything is written: replacing one of its files would ruin that index.
void export_ciff_file(const IndexReader& index, const std::filesystem::path& file, std::string description);

// The description the invidx tool writes when none is given: names the
// analysis, never paths, so equal indexes export to equal bytes. An index
// imported from CIFF (store/ciff_import.hpp) gives its file's description.
std::string default_ciff_description(const IndexReader& index);

}  // namespace invidx
