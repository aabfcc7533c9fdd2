// The "compress" node: each indexer's run postings, variable-byte encoded
// (docid gaps and tf; position gaps when positional), in parallel.
#pragma once

#include <memory>

#include "invidx/config.hpp"
#include "invidx/node.hpp"
#include "graph/build_plan.hpp"
#include "invidx/run_state.hpp"

namespace invidx {

// Settles "count" (the compressors) from the cores, before any node is made.
void resolve_compress_node(NodeOptions& options, const PipelineConfig& config, BuildPlan& plan);

std::unique_ptr<Node> make_compress_node(NodeOptions& options, RunState& state);

}  // namespace invidx
