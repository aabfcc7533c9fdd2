// The "frame" node: cuts each entry's text into documents with the framer of
// its format (nodes/frame/<format>.cpp), several files at once, packs each
// file's documents into batches for the parallel parsers, and assigns docids
// in input order in a serial step (frame_node.cpp).
#pragma once

#include <memory>

#include "invidx/config.hpp"
#include "invidx/node.hpp"
#include "graph/build_plan.hpp"
#include "invidx/run_state.hpp"

namespace invidx {

// Settles "count" (the framers) from the cores, before any node is made.
void resolve_frame_node(NodeOptions& options, const PipelineConfig& config, BuildPlan& plan);

std::unique_ptr<Node> make_frame_node(NodeOptions& options, RunState& state);

}  // namespace invidx
