// The engine: makes the nodes of a pipeline description from the registry,
// checks that consecutive nodes' message types match, links them into one
// oneTBB flow graph, runs it to the end and calls each node's finish().
#pragma once

#include <memory>
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

// One build's graph, made in two steps so that the pipeline can act between
// them: the constructor makes every node, checks that consecutive nodes'
// message types match and links them, throwing ConfigError for a bad graph
// (unknown kind or key, type mismatch, no source or sink) before any work is
// done; run() runs it to the end. Nodes are destroyed with the graph, after
// it has drained.
class FlowGraph {
public:
    FlowGraph(const std::vector<NodeSpec>& specs, const NodeRegistry& registry, RunState& state);
    ~FlowGraph();
    FlowGraph(const FlowGraph&) = delete;
    FlowGraph& operator=(const FlowGraph&) = delete;

    // The nodes that are a T, in pipeline order: what the pipeline hands
    // things to, or takes them from, explicitly.
    template <class T>
    std::vector<T*> nodes_of_type() const {
        std::vector<T*> found;
        for (const auto& node : nodes_)
            if (auto* typed = dynamic_cast<T*>(node.get())) found.push_back(typed);
        return found;
    }

    // Starts the sources, waits until the graph has drained and calls each
    // node's finish(). Throws the first node's Error (naming the node) if the
    // build fails; the graph has stopped by then. Once only.
    GraphRunResult run();

private:
    void drain_and_destroy_nodes();

    RunState& state_;
    std::vector<std::unique_ptr<Node>> nodes_;
    bool ran_ = false;
};

// "std::shared_ptr<const invidx::DocBatch>" -> "DocBatch", for messages.
std::string readable_type_name(const std::type_index& type);

}  // namespace invidx
