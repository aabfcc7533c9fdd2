// The engine: makes the nodes of a pipeline description from the registry,
// checks that consecutive nodes' message types match, links them into one
// oneTBB flow graph, runs it to the end and calls each node's finish().
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/config.hpp"
#include "invidx/registry.hpp"
#include "invidx/run_state.hpp"

namespace invidx {

struct GraphRunResult {
    double graph_seconds = 0;     // from the first message to the drained graph
    double finish_seconds = 0;    // the nodes' finish() work
    nlohmann::json nodes;         // per-node metrics (see docs/PIPELINE.md, report.json)
};

// Throws ConfigError for a bad graph (unknown kind or key, type mismatch, no
// source or sink) before anything runs, and the first node's Error (naming the
// node) if the build fails; the graph has stopped and every node is destroyed
// by the time it returns or throws.
GraphRunResult run_graph(const std::vector<NodeSpec>& specs, const NodeRegistry& registry, RunState& state);

// "std::shared_ptr<const invidx::DocBatch>" -> "DocBatch", for messages.
std::string readable_type_name(const std::type_index& type);

}  // namespace invidx
