// The "regroup" node: each parsed batch regrouped by trie collection (Wei &
// JaJa §III.C Step 5), so an indexer touches only the collections it owns.
#pragma once

#include <memory>

#include "invidx/config.hpp"
#include "invidx/node.hpp"
#include "graph/build_plan.hpp"
#include "invidx/run_state.hpp"

namespace invidx {

// Settles "count" (the regroupers) from the cores, before any node is made.
void resolve_regroup_node(NodeOptions& options, const PipelineConfig& config, BuildPlan& plan);

std::unique_ptr<Node> make_regroup_node(NodeOptions& options, RunState& state);

}  // namespace invidx
