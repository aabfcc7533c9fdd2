#include "graph/builder.hpp"

#include <algorithm>
#include <chrono>
#include <cxxabi.h>
#include <memory>

namespace invidx {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

nlohmann::json metrics_json(const NodeMetrics& m, double wall_seconds) {
    const double busy = static_cast<double>(m.busy_ns.load()) * 1e-9;
    const double wait_output = static_cast<double>(m.wait_output_ns.load()) * 1e-9;
    const double capacity = wall_seconds * m.concurrency;
    return {
        {"name", m.name},
        {"kind", m.kind},
        {"concurrency", m.concurrency},
        {"items_in", m.items_in.load()},
        {"items_out", m.items_out.load()},
        {"bytes_in", m.bytes_in.load()},
        {"bytes_out", m.bytes_out.load()},
        {"busy_seconds", busy},
        {"wait_output_seconds", wait_output},
        // Time its threads had nothing to do: all of its capacity that was
        // neither busy nor blocked handing work on.
        {"wait_input_seconds", std::max(0.0, capacity - busy - wait_output)},
        {"utilization", capacity > 0 ? busy / capacity : 0.0},
    };
}

}  // namespace

std::string readable_type_name(const std::type_index& type) {
    if (type == typeid(void)) return "nothing";
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(type.name(), nullptr, nullptr, &status), std::free);
    std::string name = status == 0 && demangled ? demangled.get() : type.name();
    if (name.rfind("invidx::", 0) == 0) name = name.substr(8);
    return name;
}

GraphRunResult run_graph(const std::vector<NodeSpec>& specs, const NodeRegistry& registry, RunState& state) {
    ensure(!specs.empty(), "the pipeline has no nodes");
    GraphRunResult result;
    // Nodes are destroyed before this function returns, in reverse order, so
    // no node outlives the state it was built with.
    std::vector<std::unique_ptr<Node>> nodes;
    // Destroyed before the nodes: whatever the graph still runs (a buffer
    // node forwards as soon as it gets a successor, before any message
    // flows) must finish before a node goes, also when a later node's
    // configuration fails.
    struct DrainBeforeDestroying {
        oneapi::tbb::flow::graph& graph;
        ~DrainBeforeDestroying() {
            try {
                graph.wait_for_all();
            } catch (...) {
            }
        }
    } drain{state.graph};
    for (const NodeSpec& spec : specs) {
        const NodeKind& kind = registry.get(spec.kind, spec.pointer + "/kind");
        NodeOptions options(spec);
        std::unique_ptr<Node> node = kind.factory(options, state);
        ensure(node != nullptr, "node kind '" + spec.kind + "' made no node");
        options.reject_unread();
        node->metrics().name = spec.name;
        node->metrics().kind = spec.kind;
        nodes.push_back(std::move(node));
    }

    if (nodes.front()->input_type() != typeid(void))
        throw ConfigError(specs.front().pointer, "the first node ('" + specs.front().name +
                                                     "') must be a source such as \"read\", but it takes " +
                                                     readable_type_name(nodes.front()->input_type()));
    if (nodes.back()->output_type() != typeid(void))
        throw ConfigError(specs.back().pointer, "the last node ('" + specs.back().name +
                                                    "') must be a sink such as \"flush\", but it gives " +
                                                    readable_type_name(nodes.back()->output_type()));
    for (size_t i = 1; i < nodes.size(); ++i) {
        const auto gives = nodes[i - 1]->output_type();
        const auto takes = nodes[i]->input_type();
        if (gives != takes)
            throw ConfigError(specs[i].pointer, "node '" + specs[i].name + "' takes " + readable_type_name(takes) +
                                                    " but the node before it ('" + specs[i - 1].name + "') gives " +
                                                    readable_type_name(gives));
        nodes[i - 1]->link_to(*nodes[i]);
    }

    const auto start = std::chrono::steady_clock::now();
    std::exception_ptr failure;
    try {
        for (auto& node : nodes) node->start();
        state.graph.wait_for_all();
    } catch (...) {
        failure = std::current_exception();
        // Let whatever is still running see the cancellation and drain.
        try {
            state.graph.wait_for_all();
        } catch (...) {
        }
    }
    result.graph_seconds = seconds_since(start);
    // A worker's failure comes first: it is why the graph was cancelled.
    if (state.failure()) failure = state.failure();
    if (failure) std::rethrow_exception(failure);

    const auto finish_start = std::chrono::steady_clock::now();
    for (auto& node : nodes) {
        node->finish(state);
        // A stop or a worker failure that came after the graph drained.
        if (state.failure()) std::rethrow_exception(state.failure());
    }
    result.finish_seconds = seconds_since(finish_start);

    result.nodes = nlohmann::json::array();
    for (const auto& node : nodes) result.nodes.push_back(metrics_json(node->metrics(), result.graph_seconds));
    return result;
}

}  // namespace invidx
