// The "flush" node: the graph's sink. Writes one postings file per run (its
// header maps each term's slot to its partial list: Wei & JaJa §III.F) and the
// document table, in docid order; at the end, the dictionary.
#pragma once

#include <memory>

#include "invidx/config.hpp"
#include "invidx/node.hpp"
#include "invidx/run_state.hpp"

namespace invidx {

std::unique_ptr<Node> make_flush_node(NodeOptions& options, RunState& state);

}  // namespace invidx
