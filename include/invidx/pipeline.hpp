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

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>
#include <stop_token>
#include <string>

#include <nlohmann/json.hpp>

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
    // The index's dictionary as written (dictionary.bin's order), where the
    // engine asked for it (a cluster build's part); empty otherwise.
    std::vector<DictionaryTerm> dictionary;
    // The paper's Table VI figures and one row per node, as text.
    std::string summary_table() const;
};

// How far a running build has come, for RunOptions::progress. Work done is
// bytes_done of input_bytes: reading runs ahead of parsing and indexing, so
// bytes_read reaches input_bytes well before the build is done.
struct ProgressNotice {
    double seconds = 0;                  // since the graph started
    uint64_t input_bytes = 0;            // the input's size on disk
    uint64_t bytes_read = 0;             // of it, read so far
    uint64_t text_bytes = 0;             // decompressed bytes framed into documents
    uint64_t documents = 0;              // documents framed
    uint64_t tokens = 0;                 // kept tokens parsed
    bool finished = false;               // the last notice: the index is published, or the build failed
    uint64_t text_bytes_parsed = 0;      // of text_bytes, the bytes of documents parsed
    // Of input_bytes, the part whose documents are parsed, estimated as
    // bytes_read * text_bytes_parsed / text_bytes; never decreasing; below
    // input_bytes while phase is "indexing", input_bytes from "writing" on.
    uint64_t bytes_done = 0;
    // "indexing": the documents are read, parsed and indexed; "writing": every
    // document is indexed, the dictionary and report.json are written;
    // "publishing": the finished index is moved into place.
    std::string phase = "indexing";
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
    // Called on a thread of the build's own every `progress_interval` while
    // the graph runs, and once more when it has drained (finished = true);
    // independent of the configuration's "progress" (the terminal's).
    std::function<void(const ProgressNotice&)> progress;
    std::chrono::milliseconds progress_interval{1000};
};

class Pipeline {
public:
    explicit Pipeline(PipelineConfig config);

    const PipelineConfig& config() const { return config_; }
    PipelineConfig& config() { return config_; }

    // What the build would settle every "auto" to on this machine (cores,
    // GPUs), with the reasons: report.json's "plan", without building.
    // Throws ConfigError as run() would for a bad configuration.
    nlohmann::json plan(const NodeRegistry& registry = node_registry()) const;

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
