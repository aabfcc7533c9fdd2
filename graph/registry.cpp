#include "invidx/registry.hpp"

namespace invidx {

void NodeRegistry::add(std::string name, std::string description, NodeFactory factory, NodeResolver resolve) {
    std::lock_guard lock(mutex_);
    ensure(!name.empty(), "a node kind needs a name");
    ensure(kinds_.find(name) == kinds_.end(), "node kind '" + name + "' is registered twice");
    kinds_.emplace(name, NodeKind{name, std::move(description), std::move(factory), std::move(resolve)});
}

const NodeKind& NodeRegistry::get(const std::string& name, const std::string& pointer) const {
    std::lock_guard lock(mutex_);
    auto it = kinds_.find(name);
    if (it != kinds_.end()) return it->second;
    std::string known;
    for (const auto& [kind, _] : kinds_) known += (known.empty() ? "" : ", ") + kind;
    throw ConfigError(pointer, "unknown node kind '" + name + "'; known: " + known);
}

bool NodeRegistry::contains(const std::string& name) const {
    std::lock_guard lock(mutex_);
    return kinds_.count(name) != 0;
}

std::vector<NodeKind> NodeRegistry::kinds() const {
    std::lock_guard lock(mutex_);
    std::vector<NodeKind> out;
    for (const auto& [_, kind] : kinds_) out.push_back(kind);
    return out;
}

}  // namespace invidx
