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

#include <functional>
#include <optional>
#include <vector>
#include <stop_token>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "invidx/collection_assignment.hpp"
#include "invidx/config.hpp"
#include "invidx/messages.hpp"
#include "invidx/registry.hpp"

namespace invidx {

// What a finished build reports; `json` is what report.json in the index holds.
struct BuildReport {
    BuildReport() = default;
    explicit BuildReport(nlohmann::json report, std::vector<DictionaryTerm> kept = {})
        : json(std::move(report)), dictionary(std::move(kept)) {}

    nlohmann::json json;
    // With RunOptions::keep_dictionary: the index's dictionary as written
    // (dictionary.bin's order).
    std::vector<DictionaryTerm> dictionary;
    // The paper's Table VI figures and one row per node, as text.
    std::string summary_table() const;
};

// What a caller can do to a running build besides waiting for it.
struct RunOptions {
    // stop.request_stop() (from any thread) cancels the flow graph, drains
    // its workers and device threads, removes the temporary directory and
    // makes run() throw invidx::Interrupted. A stop once publishing has begun
    // is too late: the build completes.
    std::stop_token stop;
    // One-line notices about leftovers of earlier builds into the same output
    // (removed, or an old index restored); default: "invidx: ..." on stderr.
    std::function<void(const std::string&)> notice;
    // Called between the steps of publishing ("publish:1", "publish:2",
    // "publish:3": docs/FORMAT.md), so tests can stop the process there.
    std::function<void(const std::string&)> at_publish_step;
    // Publish over an old index by renameat2(RENAME_EXCHANGE) where the file
    // system allows it; false: always by two renames (tests of that path).
    bool publish_by_exchange = true;
    // false: the output is published without syncing anything but its runs
    // (as they are written): a cluster build's part, which the joined index
    // rewrites or adopts and syncs itself.
    bool durable_output = true;
    // true: the build returns its dictionary (BuildReport::dictionary) as
    // well as writing it (a cluster build's part).
    bool keep_dictionary = false;
    // Called on each rank of a cluster build as it joins its range of the
    // dictionary and as it writes its documents (with its rank and the
    // join: "dictionary" or "documents"), so tests can make one fail there.
    std::function<void(int, std::string_view)> at_cluster_join;
    // The input already expanded, instead of the configuration's "input"
    // (a cluster rank's share of the sorted file list: names as the whole
    // list gave them, ordinals 0, 1, ... within the share).
    std::optional<std::vector<InputFile>> files;
    // The collection ownership decided elsewhere (a cluster build's, over
    // the indexers of every rank): the sampling step is skipped and the
    // index node takes this one, made for its number of indexers.
    std::optional<CollectionAssignment> assignment;
};

class Pipeline {
public:
    explicit Pipeline(PipelineConfig config);

    const PipelineConfig& config() const { return config_; }
    PipelineConfig& config() { return config_; }

    // Builds the index into config().output: written into a temporary
    // directory beside it and published atomically at the very end, so a
    // failed or interrupted build never leaves a directory that looks like a
    // complete index. One build per output at a time: a second one fails at
    // once, naming the first one's pid. Throws invidx::Error (node, file,
    // record, offset); invidx::Interrupted when options.stop was requested.
    BuildReport run(const RunOptions& options, const NodeRegistry& registry = node_registry());
    BuildReport run(const NodeRegistry& registry = node_registry()) { return run(RunOptions{}, registry); }

private:
    PipelineConfig config_;
};

}  // namespace invidx
