#include "pipelines/cluster/cluster_finish.hpp"

#include <algorithm>
#include <exception>

#include "graph/seconds_since.hpp"
#include "invidx/error.hpp"
#include "pipelines/cluster/mpi_session.hpp"
#include "pipelines/cluster/rank_figures.hpp"

namespace invidx {

using nlohmann::json;

ClusterOutcome finish_cluster_build(Messages& messages, int ranks, const std::function<void()>& finish) {
    const std::string rank_0 = "rank 0 of " + std::to_string(ranks);
    json outcome = {{"ok", true}};
    if (messages.rank() == 0) {
        try {
            finish();
        } catch (const Interrupted&) {
            outcome = {{"ok", false}, {"error", rank_0 + ": interrupted"}, {"interrupted", true}};
        } catch (const std::exception& error) {
            outcome = {{"ok", false}, {"error", rank_0 + ": joining the parts failed: " + error.what()}};
        }
    }
    std::string outcome_text = messages.rank() == 0 ? outcome.dump() : std::string();
    messages.broadcast(outcome_text);
    outcome = json::parse(outcome_text);
    return ClusterOutcome{.ok = outcome.at("ok").get<bool>(),
                          .error = outcome.value("error", std::string()),
                          .interrupted = outcome.value("interrupted", false)};
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
