#include "pipelines/cluster/share_config.hpp"

#include <string>
#include <vector>

#include "invidx/error.hpp"

namespace invidx {
namespace {

nlohmann::json indexers_as_planned(const IndexPlan& indexing) {
    nlohmann::json list = nlohmann::json::array();
    for (const IndexerPlan& indexer : indexing.indexers) {
        nlohmann::json entry = {{"kind", indexer.kind}, {"device", indexer.device.name()}, {"count", 1}};
        if (indexer.device.is_gpu() && indexer.staging_occurrences != 0)
            entry["staging_occurrences"] = indexer.staging_occurrences;
        list.push_back(std::move(entry));
    }
    return list;
}

}  // namespace

PipelineConfig share_config(const PipelineConfig& config, const RankLayout& layout, int source,
                            const std::filesystem::path& output) {
    ensure(layout.indexing != nullptr && layout.regroup_at < config.nodes.size(),
           "a cluster rank's pipelines need its plan's indexers and its regroup node");
    PipelineConfig share = config;
    share.cluster.reset();
    share.output = output;
    if (source != layout.rank || layout.rank != 0) share.progress = ProgressMode::off;  // one progress line per job
    const auto after_regroup = config.nodes.begin() + static_cast<std::ptrdiff_t>(layout.regroup_at) + 1;
    if (source == layout.rank && layout.ranks == 1) {
        // Nothing leaves a lone rank: no distributor, the single build's graph.
    } else if (source == layout.rank) {
        share.nodes.insert(share.nodes.begin() + static_cast<std::ptrdiff_t>(layout.regroup_at) + 1,
                           NodeSpec{.kind = "cluster_distribute", .name = "distribute", .pointer = "/cluster",
                                    .options = {{"kind", "cluster_distribute"}}});
    } else {
        std::vector<NodeSpec> nodes = {NodeSpec{.kind = "cluster_receive", .name = "receive", .pointer = "/cluster",
                                                .options = {{"kind", "cluster_receive"}, {"source", source}}}};
        nodes.insert(nodes.end(), after_regroup, config.nodes.end());
        for (NodeSpec& node : nodes)
            if (node.kind == "index") node.options["indexers"] = indexers_as_planned(*layout.indexing);
        share.nodes = std::move(nodes);
    }
    return share;
}

}  // namespace invidx
