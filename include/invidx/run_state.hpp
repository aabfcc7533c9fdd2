// What the nodes of one build share: the configuration and its settled plan,
// the input files, the token pool, progress counters and the report's
// sections. Node factories receive it; it outlives every node.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <oneapi/tbb/flow_graph.h>

#include "invidx/config.hpp"
#include "invidx/messages.hpp"

namespace invidx {

class TokenPool;
struct BuildPlan;

class RunState {
public:
    RunState(const PipelineConfig& config, const BuildPlan& plan, oneapi::tbb::flow::graph& graph, TokenPool& tokens)
        : config(config), plan(plan), graph(graph), tokens(tokens) {}
    virtual ~RunState() = default;
    RunState(const RunState&) = delete;
    RunState& operator=(const RunState&) = delete;

    const PipelineConfig& config;
    // Every "auto" of `config` settled for this machine (graph/build_plan.hpp).
    const BuildPlan& plan;
    oneapi::tbb::flow::graph& graph;
    TokenPool& tokens;

    std::vector<InputFile> files;          // sorted collection order (CONTENT.md §1-2)
    uint64_t input_bytes_compressed = 0;   // sum of file sizes on disk

    // Progress, updated by the nodes as they work.
    std::atomic<uint64_t> bytes_read{0};       // compressed bytes read from disk
    std::atomic<uint64_t> text_bytes{0};       // decompressed bytes framed into documents
    std::atomic<uint64_t> documents{0};        // documents framed
    std::atomic<uint64_t> text_bytes_parsed{0};  // of text_bytes, the bytes of documents parsed
    std::atomic<uint64_t> tokens_indexed{0};   // kept tokens parsed

    // Totals of the final dictionary, counted by the index stage's finish()
    // (the dictionary itself goes from the index node to the flush node
    // through the pipeline, pipelines/pipeline.cpp).
    uint64_t terms = 0;
    uint64_t postings = 0;

    // Sections a node adds to report.json ("sampler", "indexers", ...) and
    // named stage times in seconds (Wei & JaJa Table VI).
    void add_report_section(const std::string& key, nlohmann::json value) {
        std::lock_guard lock(mutex_);
        report_sections_[key] = std::move(value);
    }
    void add_stage_seconds(const std::string& stage, double seconds) {
        std::lock_guard lock(mutex_);
        stage_seconds_[stage] = stage_seconds_.value(stage, 0.0) + seconds;
    }
    nlohmann::json report_sections() const {
        std::lock_guard lock(mutex_);
        return report_sections_;
    }
    nlohmann::json stage_seconds() const {
        std::lock_guard lock(mutex_);
        return stage_seconds_;
    }

    // A failure outside the graph's own tasks (a device worker thread): the
    // first one is kept and the graph is cancelled; FlowGraph::run rethrows it
    // once the graph has drained.
    void fail(std::exception_ptr error) {
        {
            std::lock_guard lock(mutex_);
            if (!failure_) failure_ = std::move(error);
        }
        graph.cancel();
    }
    std::exception_ptr failure() const {
        std::lock_guard lock(mutex_);
        return failure_;
    }

private:
    mutable std::mutex mutex_;
    std::exception_ptr failure_;
    nlohmann::json report_sections_ = nlohmann::json::object();
    nlohmann::json stage_seconds_ = nlohmann::json::object();
};

}  // namespace invidx
