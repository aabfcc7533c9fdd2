// The flow graphs one rank of a partition cluster build runs, as pipeline
// configurations: one for its own files (the single build's graph, with a
// distributor after the regroup node that sends other ranks' collections
// away) and one for each other rank's stream of postings (received, then
// this rank's index, compress and flush nodes).
#pragma once

#include <cstddef>
#include <filesystem>

#include "graph/build_plan.hpp"
#include "invidx/config.hpp"

namespace invidx {

struct RankLayout {
    int rank = 0;
    int ranks = 1;
    size_t regroup_at = 0;  // in config.nodes: the node whose regrouped batches are split
    // The rank's indexers as its own plan placed them (resolve_build_plan
    // of the whole config on this rank's machine): collection ownership
    // across ranks is decided for exactly these.
    const IndexPlan* indexing = nullptr;
};

// The pipeline for `source`'s stream, writing its part to `output`. A
// pipeline fed by another rank has no parse node, where "auto" would settle
// other indexers ("device": "auto" puts GPU indexers on the GPUs that
// parse, and CPU "count": "auto" follows the parsers): its index node gets
// the plan's indexers spelled out, one entry each, in the plan's order, so
// every pipeline of the rank has the indexers (and indexer ids) the
// ownership was made for.
PipelineConfig share_config(const PipelineConfig& config, const RankLayout& layout, int source,
                            const std::filesystem::path& output);

}  // namespace invidx
