#include "pipelines/cluster/mpi/cluster_start.hpp"

#include <exception>

#include "invidx/error.hpp"
#include "pipelines/cluster/file_ranges.hpp"
#include "pipelines/cluster/mpi/mpi_session.hpp"

namespace invidx {

ClusterPlan start_cluster_build(const PipelineConfig& config, const RunOptions& options, const BuildHooks& hooks,
                                Messages& messages, const std::string& who, double stream_weight,
                                std::optional<IndexWriter>& writer) {
    std::exception_ptr start_failure;
    std::optional<ControlMessage> started;
    if (messages.rank() == 0) {
        try {
            std::vector<InputFile> files = expand_pipeline_inputs(config);
            writer.emplace(config.output, config.analysis, files,
                           PublishOptions{.notice = options.notice, .at_step = hooks.at_publish_step,
                                          .exchange = hooks.publish_by_exchange});
            std::vector<uint64_t> weights = assignment_weights(files, config.cluster->assign_files, stream_weight);
            started = ClusterPlan{.files = std::move(files),
                                  .parts_dir = writer->temporary_directory() / "cluster-parts",
                                  .file_weights = std::move(weights),
                                  .stream_file_weight = stream_weight};
        } catch (const std::exception& error) {
            start_failure = std::current_exception();
            started = FailureMessage{.error = error.what()};
        }
    }
    ControlMessage plan = messages.broadcast(started);
    if (const auto* failure = std::get_if<FailureMessage>(&plan)) {
        if (start_failure) std::rethrow_exception(start_failure);
        throw Error(who + ": stopped: rank 0 could not start the build: " + failure->error);
    }
    // Rank 0 keeps its file names as the file system gave them (the
    // message's text holds valid UTF-8 only).
    if (messages.rank() == 0) return std::get<ClusterPlan>(std::move(*started));
    return expect<ClusterPlan>(std::move(plan));
}

}  // namespace invidx
