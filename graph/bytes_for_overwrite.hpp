// Growing a block's byte buffer for bytes that are about to be written over.
//
// Why: a decoder's text block (4 MiB and up) is sized before the decoder
// writes into it. std::string::resize zero-fills what it adds, and a buffer
// the pool has not kept yet is new memory, faulted in page by page by that
// fill: on a 2-core one-stream build the fill and its faults were 6.5% of
// the build's CPU and a quarter of the decompress node's (the pool keeps
// buffers once they come back, but the first of each, as many as are in
// flight at the peak, are new).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace invidx {

// Sets bytes.size() to `size`. Bytes below the old size keep their values;
// those added are left unspecified (not zero-filled) for the caller to write
// before anyone reads them. Memory newly taken for the buffer is made present
// in one step (not one page fault a page) where the system allows it.
void resize_for_overwrite(std::string& bytes, size_t size);

// The same for a vector, whose added bytes are zero (a vector cannot leave
// them unset); its new memory is made present first all the same, so the
// zero-fill faults no pages in.
void resize_for_overwrite(std::vector<char>& bytes, size_t size);

}  // namespace invidx
