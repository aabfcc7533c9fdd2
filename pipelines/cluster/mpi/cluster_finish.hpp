// The last step of every cluster build, whatever its mode: rank 0 joins the
// ranks' parts, completes the report and publishes; every rank learns the
// outcome, so that all exit alike.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "invidx/config.hpp"
#include "invidx/pipeline.hpp"
#include "store/index_writer.hpp"

namespace invidx {

class Messages;

// What rank 0's end of the build came to, on every rank.
struct ClusterOutcome {
    bool ok = true;
    std::string error;         // "rank 0 of N: ..." when not ok
    bool interrupted = false;  // rank 0 was stopped by its caller
};

// Runs `finish` on rank 0 (the other ranks wait) and broadcasts how it
// ended: an Interrupted becomes "rank 0 of N: interrupted", any other
// error "rank 0 of N: joining the parts failed: ...". Collective.
ClusterOutcome finish_cluster_build(Messages& messages, int ranks, const std::function<void()>& finish);

// What the joined index holds, as its mode worked it out.
struct JoinedCounts {
    size_t input_files = 0;
    uint64_t documents = 0;
    uint64_t terms = 0;
    uint64_t postings = 0;
};

// Rank 0, once the index is joined and the parts are removed: completes
// `report` (holding the mode's own fields already: nodes, cluster, its
// stages) with the fields of every build report (input bytes and tokens
// summed over `per_rank`, which it holds as "per_rank", the joined counts,
// the join's time since `join_start`, the total time since `start` and the
// throughput), writes it, and publishes unless the caller has stopped the
// build (then Interrupted). The total time is then brought up to the end of
// publishing, for the caller's report.
void report_and_publish(nlohmann::json& report, const nlohmann::json& per_rank, const JoinedCounts& joined,
                        const PipelineConfig& config, const RunOptions& options, IndexWriter& writer,
                        std::chrono::steady_clock::time_point start, std::chrono::steady_clock::time_point join_start);

}  // namespace invidx
