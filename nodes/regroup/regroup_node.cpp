#include "nodes/regroup/regroup_node.hpp"

#include <algorithm>
#include <thread>

#include "graph/transform_stage.hpp"
#include "nodes/regroup/regroup.hpp"
#include "invidx/available_cores.hpp"

namespace invidx {

void resolve_regroup_node(NodeOptions& options, const PipelineConfig&, BuildPlan& plan) {
    if (plan.regrouping_node)
        throw ConfigError(options.spec().pointer, "a pipeline has at most one \"regroup\" node");
    plan.regrouping_node = options.spec().pointer;
    settle_count(options, plan, std::max(1u, (plan.machine.cores * 3 + 3) / 4), 1, "3 for every 4 cores, rounded up");
}

std::unique_ptr<Node> make_regroup_node(NodeOptions& options, RunState& state) {
    using Regroup = TransformStage<ParsedBatch, RegroupedBatch>;
    return std::make_unique<Regroup>(
        state.graph, state.plan.count_of(options),
        [](const std::shared_ptr<const ParsedBatch>& batch) {
            // The parser hands each batch to this node alone; when no one
            // else holds it, it is moved from instead of copied.
            ParsedBatch input = batch.use_count() == 1 ? std::move(const_cast<ParsedBatch&>(*batch)) : *batch;
            return std::make_shared<RegroupedBatch>(regroup(std::move(input)));
        },
        Regroup::ByteCounts{.in = [](const ParsedBatch& in) -> uint64_t { return in.terms.size(); },
                            .out = [](const RegroupedBatch& out) -> uint64_t { return out.terms.size(); }});
}

}  // namespace invidx
