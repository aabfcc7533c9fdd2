// The "read" node: the graph's source. Reads the input files one block at a
// time, in collection order, serialized like Wei & JaJa's read scheduler
// (§III.F: one read at a time). Its limiter holds at most `memory.tokens`
// blocks in flight: the engine's memory bound.
#pragma once

#include <memory>

#include "invidx/config.hpp"
#include "invidx/node.hpp"
#include "invidx/run_state.hpp"

namespace invidx {

std::unique_ptr<Node> make_read_node(NodeOptions& options, RunState& state);

}  // namespace invidx
