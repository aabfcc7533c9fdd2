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

// Makes one node from its pipeline entry. Read every key through `options`
// (unread keys are rejected after the factory returns).
using NodeFactory = std::function<std::unique_ptr<Node>(NodeOptions& options, RunState& state)>;

struct NodeKind {
    std::string name;
    std::string description;  // one line, for `invidx-run --list-kinds`
    NodeFactory factory;
};

class NodeRegistry {
public:
    // Adds a kind; a second registration of the same name is an error.
    void add(std::string name, std::string description, NodeFactory factory);
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
