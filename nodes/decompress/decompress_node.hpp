// The "decompress" node: compressed blocks in, decompressed entry text out
// (zlib for plain gzip, CRC-32 and length checked; libarchive for bzip2, xz,
// zstd, lz4, tar and zip). With "gpus", GPU workers inflate the members of
// split gzip files beside the CPU (chunk_batch.hpp).
#pragma once

#include <memory>

#include "invidx/config.hpp"
#include "invidx/node.hpp"
#include "graph/build_plan.hpp"
#include "invidx/run_state.hpp"

namespace invidx {

// Settles "count" (the decoders) from the cores, before any node is made.
void resolve_decompress_node(NodeOptions& options, const PipelineConfig& config, BuildPlan& plan);

std::unique_ptr<Node> make_decompress_node(NodeOptions& options, RunState& state);

}  // namespace invidx
