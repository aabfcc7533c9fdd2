// The first step of every cluster build, whatever its mode: rank 0 takes
// the output and tells every rank what to build.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/config.hpp"
#include "invidx/messages.hpp"
#include "invidx/pipeline.hpp"
#include "store/index_writer.hpp"

namespace invidx {

class Messages;

// What every rank knows once the build has started: the input files as rank
// 0 expanded them, and the folder in rank 0's temporary directory where the
// ranks' parts go.
struct ClusterPlan {
    std::vector<InputFile> files;
    std::filesystem::path parts_dir;
};

// Rank 0 expands the input and takes the output into `writer` (lock,
// temporary directory, leftovers of killed builds), then broadcasts the
// plan, which every rank returns: nothing starts before all know. When rank
// 0 cannot start, it rethrows its error and every other rank throws
// "`who`: stopped: rank 0 could not start the build: ...".
ClusterPlan start_cluster_build(const PipelineConfig& config, const RunOptions& options, Messages& messages,
                                const std::string& who, std::optional<IndexWriter>& writer);

}  // namespace invidx
