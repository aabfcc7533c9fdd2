// The "frame" node: cuts each entry's text into documents with the framer of
// its format (nodes/frame/<format>.cpp), assigns docids in input order and
// packs consecutive documents into batches for the parallel parsers.
#pragma once

#include <memory>

#include "invidx/config.hpp"
#include "invidx/node.hpp"
#include "invidx/run_state.hpp"

namespace invidx {

std::unique_ptr<Node> make_frame_node(NodeOptions& options, RunState& state);

}  // namespace invidx
