// The first step of every cluster build, whatever its mode: rank 0 takes
// the output and tells every rank what to build.
#pragma once

#include <optional>
#include <string>

#include "invidx/config.hpp"
#include "invidx/pipeline.hpp"
#include "pipelines/build_hooks.hpp"
#include "pipelines/cluster/control_messages.hpp"
#include "store/index_writer.hpp"

namespace invidx {

class Messages;

// Rank 0 expands the input and takes the output into `writer` (lock,
// temporary directory, leftovers of killed builds), weighs the files for
// cluster.assign_files (a one-stream gzip file's bytes by `stream_weight`,
// rank 0's own: file_work.hpp), then broadcasts the plan, which every rank
// returns: nothing starts before all know. When rank
// 0 cannot start, it rethrows its error and every other rank throws
// "`who`: stopped: rank 0 could not start the build: ...".
ClusterPlan start_cluster_build(const PipelineConfig& config, const RunOptions& options, const BuildHooks& hooks,
                                Messages& messages, const std::string& who, double stream_weight,
                                std::optional<IndexWriter>& writer);

}  // namespace invidx
