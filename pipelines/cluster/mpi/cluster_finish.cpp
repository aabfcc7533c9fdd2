#include "pipelines/cluster/mpi/cluster_finish.hpp"

#include <algorithm>
#include <exception>
#include <optional>

#include "graph/seconds_since.hpp"
#include "invidx/error.hpp"
#include "pipelines/cluster/mpi/mpi_session.hpp"
#include "pipelines/cluster/rank_figures.hpp"
#include "pipelines/duplicate_name_check.hpp"

namespace invidx {

using nlohmann::json;

ClusterOutcome finish_cluster_build(Messages& messages, int ranks, const std::function<void()>& finish) {
    const std::string rank_0 = "rank 0 of " + std::to_string(ranks);
    std::optional<ControlMessage> finished;
    if (messages.rank() == 0) {
        try {
            finish();
            finished = FinishedMessage{};
        } catch (const Interrupted&) {
            finished = FailureMessage{.error = rank_0 + ": interrupted", .interrupted = true};
        } catch (const std::exception& error) {
            finished = FailureMessage{.error = rank_0 + ": joining the parts failed: " + error.what()};
        }
    }
    const ControlMessage outcome = messages.broadcast(std::move(finished));
    if (const auto* failure = std::get_if<FailureMessage>(&outcome))
        return ClusterOutcome{.ok = false, .error = failure->error, .interrupted = failure->interrupted};
    expect<FinishedMessage>(outcome);
    return ClusterOutcome{};
}

void report_and_publish(json& report, const json& per_rank, const JoinedCounts& joined, const PipelineConfig& config,
                        const RunOptions& options, IndexWriter& writer, std::chrono::steady_clock::time_point start,
                        std::chrono::steady_clock::time_point join_start) {
    const uint64_t text_bytes = sum_over_ranks(per_rank, "text_bytes");
    report["format"] = "invidx build report";
    report["description"] = config.description;
    report["output"] = config.output.string();
    report["input_files"] = joined.input_files;
    report["input_bytes_compressed"] = sum_over_ranks(per_rank, "bytes_in");
    report["input_bytes_uncompressed"] = text_bytes;
    report["documents"] = joined.documents;
    report["tokens"] = sum_over_ranks(per_rank, "tokens");
    report["terms"] = joined.terms;
    report["postings"] = joined.postings;
    // The joined index's names, checked whole (its parts skip the check).
    report["duplicate_names"] = check_duplicate_names(writer, writer.files(), config.on_duplicate_id, options.notice);
    report["ranks"] = per_rank.size();
    report["per_rank"] = per_rank;
    if (!report.contains("stages")) report["stages"] = json::object();
    report["stages"]["cluster_join"] = seconds_since(join_start);
    report["total_seconds"] = seconds_since(start);
    report["throughput_mb_s"] = text_bytes / 1e6 / std::max(1e-9, report["total_seconds"].get<double>());
    writer.write_report(report);
    if (options.stop.stop_requested()) throw Interrupted();
    writer.publish();
    report["total_seconds"] = seconds_since(start);
}

}  // namespace invidx
