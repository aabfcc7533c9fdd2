// BM25 impacts of every posting read from the query layout's compressed
// lists, on the CPU or on a GPU (devices/gpu_layout_weights.hpp), so that
// both start from the same bytes: what `invidx weight` has on disk when it
// runs. Postings come out term by term in dictionary order, each term's in
// docid order, one impact each (the order store/impacts.hpp's writer takes).
//
// Both paths take two passes over the lists: the largest weight first, then
// every weight again, quantized by it (store/impacts.hpp's ImpactQuantizer).
#pragma once

#include <cstdint>
#include <span>

#include "devices/gpu_layout_weights.hpp"
#include "store/index_reader.hpp"
#include "store/query_postings.hpp"

namespace invidx {

// The GPU's input for every term of `index`: its bp128 query layout's bytes
// (verified against checksums.bin first, as any read of them is; `layout`
// must outlive the input, which points into it), the dictionary's dfs, the
// document lengths and the layout's k1 and b. An Error when the layout's
// codec is not bp128 (the device decodes bp128 only).
GpuLayoutWeightInput layout_weight_input(const IndexReader& index, const QueryPostings& layout, unsigned bits);

// Every posting's impact into `impacts` (num_postings entries), decoded and
// weighed on the CPU, terms in parallel (oneTBB). Returns the largest weight.
double layout_impacts_on_cpu(const IndexReader& index, const QueryPostings& layout, unsigned bits, std::span<uint16_t> impacts);
double layout_impacts_on_cpu(const IndexReader& index, const QueryPostings& layout, unsigned bits, std::span<uint8_t> impacts);

// The host reference of gpu_layout_impacts: the same input walked by the
// same code (devices/layout_block_walk.hpp), decoded with the store's bp128
// codec and weighed on the calling thread. Returns the largest weight; an
// Error where the GPU's raises one.
double layout_impacts_on_host(const GpuLayoutWeightInput& input, std::span<uint16_t> impacts);

}  // namespace invidx
