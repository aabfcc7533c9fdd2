#include "nodes/compress/compress_node.hpp"

#include <algorithm>
#include <thread>

#include "graph/transform_stage.hpp"
#include "store/run_list.hpp"
#include "invidx/available_cores.hpp"

namespace invidx {

void resolve_compress_node(NodeOptions& options, const PipelineConfig&, BuildPlan& plan) {
    settle_count(options, plan, std::max(1u, plan.machine.cores / 4), 1, "one per four cores");
}

std::unique_ptr<Node> make_compress_node(NodeOptions& options, RunState& state) {
    using Compress = TransformStage<RunPostings, CompressedRun>;
    return std::make_unique<Compress>(
        state.graph, state.plan.count_of(options),
        [](const std::shared_ptr<const RunPostings>& run) {
            return std::make_shared<CompressedRun>(run_list::encode_run(*run));
        },
        Compress::ByteCounts{.in = {}, .out = [](const CompressedRun& out) -> uint64_t { return out.bytes.size(); }});
}

}  // namespace invidx
