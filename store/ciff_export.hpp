// Export to CIFF, the Common Index File Format (github.com/osirrc/ciff,
// CommonIndexFileFormat.proto; SPEC §6): a length-delimited Header, one
// PostingsList per term in byte-wise term order, one DocRecord per document.
#pragma once

#include <ostream>
#include <string>

#include "store/index_reader.hpp"

namespace invidx {

// Throws invidx::Error when a count or value does not fit CIFF's int32
// fields, or when the stream fails.
void export_ciff(const IndexReader& index, std::ostream& out, std::string description);

// The description the invidx tool writes when none is given: names the
// analysis, never paths, so equal indexes export to equal bytes.
std::string default_ciff_description(const IndexReader& index);

}  // namespace invidx
