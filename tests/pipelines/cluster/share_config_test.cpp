// The pipelines of a rank of a partition cluster build as configurations:
// every one of them must have the indexers the rank's plan placed, since
// collection ownership across ranks is decided for those, whatever "auto"
// would settle in a pipeline without the parse node (another rank's stream).
#include "pipelines/cluster/share_config.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "invidx/registry.hpp"
#include "nodes/parse/gpu_parse_backend.hpp"
#include "pipelines/resolve_plan.hpp"

using namespace invidx;

namespace {

PipelineConfig default_config() {
    return PipelineConfig::from_file(std::string(INVIDX_SOURCE_DIR) + "/configs/default.json", {});
}

MachineResources machine(unsigned cores, std::vector<int> gpus) {
    MachineResources out;
    out.cores = cores;
    out.gpus = std::move(gpus);
    out.gpus_note = out.gpus.empty() ? "no CUDA device (pretend)" : "";
    return out;
}

// The standard kinds and the two the MPI build adds (never made here: the
// resolve step only asks for their names).
void add_cluster_kinds(NodeRegistry& registry) {
    for (const NodeKind& kind : node_registry().kinds())
        registry.add(kind.name, kind.description, kind.factory, kind.resolve);
    for (const char* name : {"cluster_distribute", "cluster_receive"})
        registry.add(name, "for this test", [](NodeOptions&, RunState&) -> std::unique_ptr<Node> { return nullptr; });
}

std::vector<std::string> indexers_of(const BuildPlan& plan) {
    std::vector<std::string> out;
    for (const IndexerPlan& indexer : plan.indexing->indexers) out.push_back(indexer.kind + "@" + indexer.device.name());
    return out;
}

std::vector<std::string> kinds_of(const PipelineConfig& config) {
    std::vector<std::string> out;
    for (const NodeSpec& node : config.nodes) out.push_back(node.kind);
    return out;
}

size_t regroup_position(const PipelineConfig& config) {
    for (size_t i = 0; i < config.nodes.size(); ++i)
        if (config.nodes[i].kind == "regroup") return i;
    FAIL("no regroup node");
    return 0;
}

}  // namespace

TEST_CASE("cluster shares: another rank's stream gets the indexers the rank's plan placed, GPUs or none") {
    NodeRegistry registry;
    add_cluster_kinds(registry);
    const PipelineConfig config = default_config();
    for (const int gpus : {1, 0}) {
        CAPTURE(gpus);
        // default.json on 16 cores: with a GPU that parses, a gpu_hash on it
        // and one CPU indexer per two cores; without, one per four.
        const ScopedGpuParseBackend backend(host_reference_gpu_parse_backend(gpus));
        const MachineResources here = machine(16, gpus ? std::vector<int>{0} : std::vector<int>{});
        const BuildPlan rank_plan = resolve_build_plan(config, registry, here);
        REQUIRE(rank_plan.indexing);
        const std::vector<std::string> planned = indexers_of(rank_plan);
        CHECK(planned.size() == (gpus ? 9u : 4u));
        const RankLayout layout{
            .rank = 0, .ranks = 2, .regroup_at = regroup_position(config), .indexing = &*rank_plan.indexing};

        const PipelineConfig received = share_config(config, layout, 1, "/tmp/part-1");
        CHECK(kinds_of(received) == std::vector<std::string>{"cluster_receive", "index", "compress", "flush"});
        CHECK_FALSE(received.cluster);
        CHECK(received.output == "/tmp/part-1");
        const BuildPlan received_plan = resolve_build_plan(received, registry, here);
        REQUIRE(received_plan.indexing);
        CHECK(indexers_of(received_plan) == planned);

        const PipelineConfig own = share_config(config, layout, 0, "/tmp/part-0");
        std::vector<std::string> expected = kinds_of(config);
        expected.insert(expected.begin() + static_cast<std::ptrdiff_t>(layout.regroup_at) + 1, "cluster_distribute");
        CHECK(kinds_of(own) == expected);
        CHECK(indexers_of(resolve_build_plan(own, registry, here)) == planned);
    }
}

TEST_CASE("cluster shares: a lone rank runs the single build's graph") {
    const ScopedGpuParseBackend no_gpus(host_reference_gpu_parse_backend(0));
    const PipelineConfig config = default_config();
    const BuildPlan plan = resolve_build_plan(config, node_registry(), machine(2, {}));
    const RankLayout layout{.rank = 0, .ranks = 1, .regroup_at = regroup_position(config), .indexing = &*plan.indexing};
    const PipelineConfig own = share_config(config, layout, 0, "/tmp/part-0");
    CHECK(kinds_of(own) == kinds_of(config));
    CHECK(own.progress == config.progress);
}
