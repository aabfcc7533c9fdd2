// The plan of one build: every "auto" of the pipeline description settled
// once, against this machine's cores and GPUs, before any node is made.
//
//   (PipelineConfig, MachineResources) --resolve_build_plan--> BuildPlan
//
// Node kinds that take part register a resolver beside their factory
// (registry.hpp): the resolver reads its own node's keys and writes its
// section here; a later node's resolver may read an earlier node's section
// (typed values, never the other node's JSON). The factories then make the
// nodes from the plan, and report.json prints it ("plan": what "auto" became
// and why).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/config.hpp"
#include "invidx/device.hpp"
#include "invidx/machine_resources.hpp"

namespace invidx {

// The parse node's settled parsers (the keys and their defaults:
// nodes/parse/gpu_parsers.hpp).
struct GpuParserPlan {
    Device device;
    unsigned slots = 0;               // batches in flight on the GPU at once
    uint64_t max_batch_bytes = 0;     // larger batches are parsed on the host
    bool resident_terms = false;      // may keep a GPU indexer's terms on the device
};

struct ParsePlan {
    unsigned cpu_parsers = 1;
    std::string cpu_parsers_reason;
    std::string gpus_setting = "none";   // what "gpus" said: "none", "auto" or "list"
    std::vector<GpuParserPlan> gpus;     // the GPUs that parse; empty: CPU parsers only
    std::string gpus_reason;

    // All parsing on GPUs: the cores are free for the other nodes.
    bool gpus_only() const { return cpu_parsers == 0 && !gpus.empty(); }
    // The GPUs that parse; with `keeping_terms_only`, those whose parsers may
    // keep a GPU indexer's terms on the device.
    std::vector<int> gpu_ordinals(bool keeping_terms_only = false) const;
};

// The index node's settled indexers, one entry per indexer, in indexer order.
struct IndexerPlan {
    std::string kind;
    Device device;
    std::string pointer;                // the "indexers" entry it comes from
    uint64_t staging_occurrences = 0;   // device kinds: per staging buffer, 0 = default
    bool placed_automatically = false;  // "device": "auto" put it there
    bool takes_device_terms = false;    // its kind can take terms left on its GPU
};

struct IndexPlan {
    uint64_t run_bytes = 0;
    std::vector<IndexerPlan> indexers;
    std::string cpu_indexers_reason;  // what "count": "auto" of CPU entries became
    bool any_automatic_device = false;
    std::string automatic_device_reason;  // where "device": "auto" went, or why nowhere

    std::vector<Device> devices() const;
};

// A node's "count" as settled: the number and the rule that gave it.
struct SettledCount {
    std::string node;  // its name
    unsigned value = 1;
    std::string why;
};

struct BuildPlan {
    MachineResources machine;

    // Per node (its JSON pointer), for kinds whose only "auto" is their
    // count (settle_count below); the parse and index nodes have their own
    // sections.
    std::map<std::string, SettledCount> counts;

    uint32_t tokens = 16;
    std::string tokens_reason;

    // memory.batch_bytes and text_block_bytes as the nodes use them
    // ("auto" settled: pipelines/resolve_plan.cpp); the defaults are a
    // configuration's without GPUs.
    uint64_t batch_bytes = kBatchBytesWithoutGpus;
    uint64_t text_block_bytes = auto_text_block_bytes(kBatchBytesWithoutGpus);
    std::string batch_bytes_reason;

    std::optional<ParsePlan> parsing;
    std::optional<IndexPlan> indexing;
    // The node (its JSON pointer) that hands on batches regrouped by trie
    // collection: where a partition cluster build splits the graph to send
    // each collection's postings to the rank that owns it.
    std::optional<std::string> regrouping_node;

    // Each GPU with exactly one indexer that takes device terms: that
    // indexer's id. GPU parsers there keep its collections' terms on the
    // device (with two such indexers on one device, neither: each would
    // need its own share split out).
    std::map<int, uint32_t> device_terms_indexer;

    // The sampler's popular-collection share, and which indexers GPU
    // parsers feed on their device (one entry per indexer).
    double popular_token_fraction = 0.5;
    bool popular_token_fraction_auto = true;
    std::vector<bool> fed_on_device;

    // Per node (its JSON pointer): the keys its resolver read, so that the
    // builder does not take them for unknown keys.
    std::map<std::string, std::set<std::string>> keys_read;

    // The GPUs the plan's parsers and indexers use, each once, in order.
    std::vector<int> gpu_ordinals() const;
    // What report.json prints as "plan".
    nlohmann::json to_json() const;
    // The count settle_count recorded for this node.
    unsigned count_of(const NodeOptions& options) const;
};

// A resolver's helper: reads the node's "count" ("auto" is `automatic`, an
// absent key `absent`), records it with `rule` (how "auto" is computed, in
// words) and returns it.
unsigned settle_count(NodeOptions& options, BuildPlan& plan, unsigned automatic, unsigned absent,
                      const std::string& rule);

}  // namespace invidx
