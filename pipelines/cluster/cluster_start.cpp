#include "pipelines/cluster/cluster_start.hpp"

#include <exception>

#include "invidx/error.hpp"
#include "pipelines/cluster/file_ranges.hpp"
#include "pipelines/cluster/mpi_session.hpp"

namespace invidx {

using nlohmann::json;

ClusterPlan start_cluster_build(const PipelineConfig& config, const RunOptions& options, Messages& messages,
                                const std::string& who, std::optional<IndexWriter>& writer) {
    ClusterPlan out;
    std::exception_ptr start_failure;
    std::string plan_text;
    if (messages.rank() == 0) {
        json plan;
        try {
            out.files = expand_pipeline_inputs(config);
            writer.emplace(config.output, config.analysis, out.files,
                           PublishOptions{.notice = options.notice, .at_step = options.at_publish_step,
                                          .exchange = options.publish_by_exchange});
            plan = {{"ok", true},
                    {"parts", (writer->temporary_directory() / "cluster-parts").string()},
                    {"files", files_to_json(out.files)}};
        } catch (const std::exception& error) {
            start_failure = std::current_exception();
            plan = {{"ok", false}, {"error", error.what()}};
        }
        plan_text = plan.dump();
    }
    messages.broadcast(plan_text);
    const json plan = json::parse(plan_text);
    if (!plan.at("ok").get<bool>()) {
        if (start_failure) std::rethrow_exception(start_failure);
        throw Error(who + ": stopped: rank 0 could not start the build: " + plan.at("error").get<std::string>());
    }
    if (messages.rank() != 0) out.files = files_from_json(plan.at("files"));
    out.parts_dir = plan.at("parts").get<std::string>();
    return out;
}

}  // namespace invidx
