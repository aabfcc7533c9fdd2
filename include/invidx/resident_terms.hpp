// Terms a GPU parser leaves in device memory for the GPU indexer of the same
// device (issue #11: terms do not cross PCIe twice). The index node names,
// before the graph runs, each device whose one GPU indexer takes them and
// which collections it owns (a ResidentRoute); a GPU parser of that device
// then hands those collections' terms on in device memory and brings back
// only the rest (the CPU indexers' popular collections). Any batch may still
// come with every term on the host (a CPU parser's, or when the parser's
// buffers are all in use): the GPU indexer takes both.
// C++17 and free of CUDA headers.
#pragma once

#include <cstdint>
#include <vector>

namespace invidx {

// Which collections' terms stay on device `device` (kCollections flags).
struct ResidentRoute {
    int device = -1;
    std::vector<uint8_t> owned;
};

// One batch's terms that stayed on `device`: `count` TermOccurrences
// (include/invidx/messages.hpp's layout), the batch's terms of the route's
// collections in batch order, and the batch's whole term arena (the same
// bytes as ParsedBatch::terms). Device memory a parser lends: it goes back
// when the last holder lets go of this.
struct ResidentTerms {
    int device = -1;
    const void* occurrences = nullptr;  // device pointer
    uint64_t count = 0;
    const char* arena = nullptr;        // device pointer
    uint64_t arena_bytes = 0;
};

}  // namespace invidx
