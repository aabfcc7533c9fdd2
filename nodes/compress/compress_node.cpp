#include "nodes/compress/compress_node.hpp"

#include <algorithm>
#include <thread>

#include "graph/transform_stage.hpp"
#include "store/run_list.hpp"
#include "invidx/available_cores.hpp"

namespace invidx {

std::unique_ptr<Node> make_compress_node(NodeOptions& options, RunState& state) {
    const unsigned hardware = available_cores();
    using Compress = TransformStage<RunPostings, CompressedRun>;
    return std::make_unique<Compress>(
        state.graph, options.count(std::max(1u, hardware / 4), 1),
        [](const std::shared_ptr<const RunPostings>& run) {
            return std::make_shared<CompressedRun>(run_list::encode_run(*run));
        },
        Compress::ByteCounts{.in = {}, .out = [](const CompressedRun& out) -> uint64_t { return out.bytes.size(); }});
}

}  // namespace invidx
