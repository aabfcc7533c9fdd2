// The public entry point: build an index from a pipeline description.
//
//   auto config = invidx::PipelineConfig::from_file("configs/default.json", {"parse.count=4"});
//   invidx::Pipeline pipeline(std::move(config));
//   invidx::BuildReport report = pipeline.run();
//   std::cout << report.summary_table();
//
// A custom node kind is registered in invidx::node_registry() (or a registry
// of your own passed to run()) and named in the JSON's "nodes" list.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "invidx/config.hpp"
#include "invidx/registry.hpp"

namespace invidx {

// What a finished build reports; `json` is what report.json in the index holds.
struct BuildReport {
    nlohmann::json json;
    // The paper's Table VI figures and one row per node, as text.
    std::string summary_table() const;
};

class Pipeline {
public:
    explicit Pipeline(PipelineConfig config);

    const PipelineConfig& config() const { return config_; }
    PipelineConfig& config() { return config_; }

    // Builds the index into config().output: written into a temporary
    // directory beside it and published atomically at the very end, so a
    // failed or interrupted build never leaves a directory that looks like a
    // complete index. Throws invidx::Error (node, file, record, offset).
    BuildReport run(const NodeRegistry& registry = node_registry());

private:
    PipelineConfig config_;
};

}  // namespace invidx
