#include "graph/builder.hpp"

#include <algorithm>
#include <chrono>
#include <cxxabi.h>
#include <memory>
#include <optional>

#include "graph/build_plan.hpp"
#include "graph/seconds_since.hpp"
#include "graph/timeline_sampler.hpp"

namespace invidx {
namespace {

nlohmann::json metrics_json(const NodeMetrics& m, double wall_seconds) {
    const double busy = static_cast<double>(m.busy_ns.load()) * 1e-9;
    const double busy_cpu = static_cast<double>(m.busy_cpu_ns.load()) * 1e-9;
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
        // The CPU time its threads used in those bodies: less than
        // busy_seconds when they waited for a core or a device.
        {"busy_cpu_seconds", busy_cpu},
        {"wait_output_seconds", wait_output},
        // Time its threads had nothing to do: all of its capacity that was
        // neither busy nor blocked handing work on.
        {"wait_input_seconds", std::max(0.0, capacity - busy - wait_output)},
        {"utilization", capacity > 0 ? busy / capacity : 0.0},
    };
}

// "'counter' (kind count_documents)", or "'parse'" when the name is the kind.
std::string described(const NodeSpec& spec) {
    if (spec.name == spec.kind) return "'" + spec.name + "'";
    return "'" + spec.name + "' (kind " + spec.kind + ")";
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

FlowGraph::FlowGraph(const std::vector<NodeSpec>& specs, const NodeRegistry& registry, RunState& state)
    : state_(state) {
    ensure(!specs.empty(), "the pipeline has no nodes");
    try {
        for (const NodeSpec& spec : specs) {
            const NodeKind& kind = registry.get(spec.kind, spec.pointer + "/kind");
            // The keys the kind's resolver read are not unknown keys.
            const auto resolved = state_.plan.keys_read.find(spec.pointer);
            NodeOptions options(spec, resolved == state_.plan.keys_read.end() ? std::set<std::string>{}
                                                                               : resolved->second);
            std::unique_ptr<Node> node = kind.factory(options, state);
            ensure(node != nullptr, "node kind '" + spec.kind + "' made no node");
            options.reject_unread();
            node->metrics().name = spec.name;
            node->metrics().kind = spec.kind;
            nodes_.push_back(std::move(node));
        }

        if (nodes_.front()->input_type() != typeid(void))
            throw ConfigError(specs.front().pointer, "the first node ('" + specs.front().name +
                                                         "') must be a source such as \"read\", but it takes " +
                                                         readable_type_name(nodes_.front()->input_type()));
        if (nodes_.back()->output_type() != typeid(void))
            throw ConfigError(specs.back().pointer, "the last node ('" + specs.back().name +
                                                        "') must be a sink such as \"flush\", but it gives " +
                                                        readable_type_name(nodes_.back()->output_type()));
        for (size_t i = 1; i < nodes_.size(); ++i) {
            const auto gives = nodes_[i - 1]->output_type();
            const auto takes = nodes_[i]->input_type();
            if (gives != takes)
                throw ConfigError(specs[i].pointer, "node " + described(specs[i]) + " takes " +
                                                        readable_type_name(takes) + " but the node before it, " +
                                                        described(specs[i - 1]) + ", gives " +
                                                        readable_type_name(gives));
            nodes_[i - 1]->link_to(*nodes_[i]);
        }
    } catch (...) {
        // No destructor runs for a constructor that throws.
        drain_and_destroy_nodes();
        throw;
    }
}

FlowGraph::~FlowGraph() { drain_and_destroy_nodes(); }

void FlowGraph::drain_and_destroy_nodes() {
    // Whatever the graph still runs (a buffer node forwards as soon as it
    // gets a successor, before any message flows) must finish before a node
    // goes, also when a later node's configuration failed.
    try {
        state_.graph.wait_for_all();
    } catch (...) {
    }
    nodes_.clear();
}

GraphRunResult FlowGraph::run() {
    ensure(!ran_, "the graph runs once");
    ran_ = true;
    GraphRunResult result;
    std::optional<TimelineSampler> timeline;
    if (state_.config.report.timeline_ms > 0) {
        std::vector<TimelineSampler::Source> sources;
        for (const auto& node : nodes_) sources.push_back({node->metrics().name, &node->metrics()});
        timeline.emplace(std::move(sources), &state_.tokens, std::chrono::milliseconds(state_.config.report.timeline_ms));
    }
    const auto start = std::chrono::steady_clock::now();
    std::exception_ptr failure;
    try {
        for (auto& node : nodes_) node->start();
        state_.graph.wait_for_all();
    } catch (...) {
        failure = std::current_exception();
        // Let whatever is still running see the cancellation and drain.
        try {
            state_.graph.wait_for_all();
        } catch (...) {
        }
    }
    result.graph_seconds = seconds_since(start);
    if (timeline) {
        timeline->stop();
        state_.add_report_section("timeline", timeline->to_json());
    }
    // A worker's failure comes first: it is why the graph was cancelled.
    if (state_.failure()) failure = state_.failure();
    if (failure) std::rethrow_exception(failure);

    const auto finish_start = std::chrono::steady_clock::now();
    for (auto& node : nodes_) {
        node->finish(state_);
        // A stop or a worker failure that came after the graph drained.
        if (state_.failure()) std::rethrow_exception(state_.failure());
    }
    result.finish_seconds = seconds_since(finish_start);

    result.nodes = nlohmann::json::array();
    for (const auto& node : nodes_) result.nodes.push_back(metrics_json(node->metrics(), result.graph_seconds));
    return result;
}

}  // namespace invidx
