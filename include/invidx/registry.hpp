// Node kinds by name (STYLE.md: a registry, not a switch). The engine asks the
// registry for "parse" or "index"; an unknown kind is an error listing the
// known ones. An embedding program registers its own kinds the same way.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "invidx/config.hpp"
#include "invidx/node.hpp"

namespace invidx {

class RunState;
struct BuildPlan;

// Makes one node from its pipeline entry. Read every key through `options`
// (unread keys are rejected after the factory returns); what the kind's
// resolver settled is in state.plan.
using NodeFactory = std::function<std::unique_ptr<Node>(NodeOptions& options, RunState& state)>;

// Optional, for a kind whose "auto" values depend on the machine or on the
// nodes before it: runs once per build, in pipeline order, before any node
// is made, and writes what it settled into the plan (graph/build_plan.hpp).
// The keys it reads count as read for the factory too.
using NodeResolver = std::function<void(NodeOptions& options, const PipelineConfig& config, BuildPlan& plan)>;

struct NodeKind {
    std::string name;
    std::string description;  // one line, for `invidx-run --list-kinds`
    NodeFactory factory;
    NodeResolver resolve;     // empty for most kinds
};

class NodeRegistry {
public:
    // Adds a kind; a second registration of the same name is an error.
    void add(std::string name, std::string description, NodeFactory factory, NodeResolver resolve = {});
    // The kind named at `pointer` of the pipeline, or a ConfigError listing the known ones.
    const NodeKind& get(const std::string& name, const std::string& pointer) const;
    bool contains(const std::string& name) const;
    std::vector<NodeKind> kinds() const;  // sorted by name

private:
    mutable std::mutex mutex_;
    std::map<std::string, NodeKind> kinds_;
};

// The process-wide registry, with the standard kinds of pipelines/ already in.
NodeRegistry& node_registry();

}  // namespace invidx
