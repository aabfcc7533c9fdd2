// The pipeline description (docs/PIPELINE.md documents every key). The JSON is
// parsed once, here, into typed structs with their defaults beside them;
// unknown keys and wrong types are ConfigErrors naming the JSON pointer.
#pragma once

#include <cstdint>
#include <filesystem>
#include <set>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/analysis_settings.hpp"
#include "invidx/input_format.hpp"

namespace invidx {

// The bounds of the pipeline's integer keys (docs/PIPELINE.md, "Limits"):
// every integer is range-checked when the pipeline is read, before it is
// narrowed, so no value wraps.
// A node's or an indexer entry's "count": far above any machine's cores;
// an indexer holds a dictionary of its own, so thousands would take
// gigabytes before a document is read.
inline constexpr unsigned kMaxNodeCount = 256;
inline constexpr uint32_t kMaxMemoryTokens = 65536;               // memory.tokens
inline constexpr uint64_t kMaxBlockBytes = uint64_t{1} << 30;     // block, batch and per-file sample sizes
inline constexpr uint64_t kMaxRunBytes = uint64_t{1} << 40;       // memory.run_bytes, sampler.max_bytes

struct InputConfig {
    std::string path;             // file, directory or glob
    // "auto" (from each file's name) or a name of invidx/input_format.hpp's
    // table; checked by the config reader.
    std::string format{kAutoInputFormat};
};

// Memory is bounded by tokens: at most `tokens` read blocks (and everything
// derived from them) are in flight at once, whatever the input's size.
struct MemoryConfig {
    // Unset ("auto"): settled from the cores by the build's plan
    // (pipelines/resolve_plan.hpp).
    std::optional<uint32_t> tokens;
    uint64_t read_block_bytes = 4ull << 20;   // compressed bytes per read
    uint64_t batch_bytes = 2ull << 20;        // document text per parse batch
    // memory.batch_bytes "auto": settled by the build's plan
    // (BuildPlan::batch_bytes, which the nodes read): 4 MiB where GPUs
    // parse, else 2 MiB; batch_bytes above is then not used.
    bool batch_bytes_auto = false;
    // Decompressed bytes per block. Unset ("auto", the default): settled by
    // the plan from its batch size (auto_text_block_bytes).
    std::optional<uint64_t> text_block_bytes;
    uint64_t run_bytes = 256ull << 20;        // document text per run (one postings file each)
};

// memory.batch_bytes "auto": 4 MiB where GPUs parse (their slots and GPU
// inflate build faster and use less CPU on larger batches), else 2 MiB.
inline constexpr uint64_t kBatchBytesWithGpus = 4ull << 20;
inline constexpr uint64_t kBatchBytesWithoutGpus = 2ull << 20;

// memory.text_block_bytes "auto" for batches of `batch_bytes`.
uint64_t auto_text_block_bytes(uint64_t batch_bytes);

// Wei & JaJa §III.E: a sample of the collection decides which indexer owns
// which trie collection, once, for the whole build.
struct SamplerConfig {
    bool enabled = true;
    uint64_t bytes_per_file = 1ull << 20;     // decompressed bytes sampled from each file's start
    uint64_t max_bytes = 64ull << 20;         // total sample cap
    // Popular collections cover this share of sampled tokens; unset ("auto"):
    // 0.5, or with CPU and GPU indexers together the CPU indexers' share of
    // the indexing capacity (nodes/index/index_node.cpp).
    std::optional<double> popular_token_fraction;
    uint32_t max_popular = 256;
};

// The modes of a pipeline, parsed once into these (graph/config.cpp);
// mode_name gives each one's word back for reports and messages.
enum class ClusterMode { partition, files };
enum class FileAssignment { by_work, by_size, by_count };
enum class DictionaryJoinMode { parallel, serial };
enum class ProgressMode { automatic, bar, lines, off };
// What a build does with document names that several documents have
// (store/duplicate_names.hpp): report them, or fail before publishing.
enum class DuplicateIdPolicy { warn, error };

std::string_view mode_name(ClusterMode mode);
std::string_view mode_name(FileAssignment assignment);
std::string_view mode_name(DictionaryJoinMode join);
std::string_view mode_name(ProgressMode mode);
std::string_view mode_name(DuplicateIdPolicy policy);

// A build over the ranks of an MPI job (docs/PIPELINE.md "cluster",
// docs/FORMAT.md "Cluster builds"): each rank parses a contiguous range of
// the sorted input files; the index is identical to a single machine's.
// Needs an invidx built with MPI.
struct ClusterConfig {
    // "partition" (Wei & JaJa's partition-and-index: trie collections owned
    // by the indexers of all ranks, parsed postings sent to their owners) or
    // "files" (each rank indexes its files alone, rank 0 joins the parts).
    ClusterMode mode = ClusterMode::partition;
    // How the sorted file list is cut into one contiguous range per rank:
    // "work" (nearly equal bytes on disk, a one-stream gzip file's bytes
    // weighed by stream_file_weight: pipelines/cluster/file_work.hpp),
    // "size" (nearly equal bytes on disk) or "count" (nearly equal files).
    FileAssignment assign_files = FileAssignment::by_work;
    // "work": what a byte of a one-stream gzip file weighs against a byte of
    // a file of gzip members; unset ("auto"): 1.3 where the GPUs inflate
    // members (decompress.gpus), else 1.
    std::optional<double> stream_file_weight;
    // How a partition build's dictionary parts become dictionary.bin:
    // "parallel" (every rank merges and writes one range of the terms) or
    // "serial" (rank 0 alone). The bytes are the same.
    DictionaryJoinMode join = DictionaryJoinMode::parallel;
    // Partition mode: how many of a rank's batches may have postings out on
    // other ranks (sent, not yet indexed there) without holding their read
    // token (pipelines/cluster/exchange_credits.hpp); unset ("auto"): as many
    // as memory.tokens.
    std::optional<uint32_t> exchange_credits;
};

// One entry of "nodes": a node kind, how many run at once, and its own keys.
struct NodeSpec {
    std::string kind;
    std::string name;             // defaults to kind; must be unique
    std::string pointer;          // JSON pointer of this entry, for errors ("/nodes/3")
    nlohmann::json options;       // the whole entry; the kind's factory reads its keys
};

// What the index keeps besides postings (docs/PIPELINE.md, "store").
struct StoreConfig {
    // Each document's text and JSONL metadata (documents-text.bin).
    bool documents = false;
    // Its blocks' zlib level, 0..12: 0 stores them uncompressed (a build
    // at about full speed), 1 compresses to about a quarter at about half
    // the build's speed on cores the build keeps busy (docs/PIPELINE.md).
    int level = 0;
};

// What report.json holds beyond its fixed sections.
struct ReportConfig {
    // Every this many milliseconds the graph's state is sampled into
    // report.json's "timeline" (graph/timeline_sampler.hpp); 0: no timeline.
    uint32_t timeline_ms = 0;
};

struct PipelineConfig {
    std::string description;
    std::vector<InputConfig> inputs;
    std::filesystem::path output = "index";
    AnalysisSettings analysis = AnalysisSettings::defaults();
    MemoryConfig memory;
    SamplerConfig sampler;
    StoreConfig store;
    ReportConfig report;
    std::optional<ClusterConfig> cluster;  // set: an MPI cluster build
    ProgressMode progress = ProgressMode::automatic;  // "auto" (bar on a terminal, lines otherwise), "bar", "lines", "off"
    DuplicateIdPolicy on_duplicate_id = DuplicateIdPolicy::warn;  // "on_duplicate_id": "warn" or "error"
    std::vector<NodeSpec> nodes;

    // `overrides` are "key=value" strings (invidx-run --set): a dotted path
    // (`memory.tokens`, `parse.count` — a node addressed by its name) and a
    // JSON value (a bare word is taken as a string).
    static PipelineConfig from_json(nlohmann::json json, const std::vector<std::string>& overrides = {});
    static PipelineConfig from_file(const std::filesystem::path& file,
                                    const std::vector<std::string>& overrides = {});
};

// Applies one "key=value" override to a raw pipeline JSON. A key that goes
// through a string, number or boolean, or an array index that is not one,
// is a ConfigError naming the key; so is a pipeline that is no object.
void apply_override(nlohmann::json& json, const std::string& assignment);
// The same with the value given as JSON already: invidx-run's --input and
// --output, whose paths are bytes and need not be UTF-8.
void apply_override(nlohmann::json& json, const std::string& key, nlohmann::json value);

// A pipeline file's JSON, or an Error naming the file.
nlohmann::json read_pipeline_file(const std::filesystem::path& file);

// A value as JSON text for a message, bytes that are not UTF-8 replaced
// (never throws, unlike nlohmann's dump()).
std::string config_value_text(const nlohmann::json& value);

// Reads a node's own keys and remembers which were read, so the builder can
// reject the rest ("unknown key 'cout' at /nodes/3/cout; known: ...").
class NodeOptions {
public:
    explicit NodeOptions(const NodeSpec& spec);
    // With the keys that were read already (by the kind's resolver).
    NodeOptions(const NodeSpec& spec, const std::set<std::string>& already_read);

    const NodeSpec& spec() const { return spec_; }
    std::string pointer(const std::string& key) const { return spec_.pointer + "/" + key; }

    // "count": a positive integer, or "auto" for `auto_value`.
    unsigned count(unsigned auto_value, unsigned default_value);
    std::string string(const std::string& key, const std::string& default_value);
    uint64_t unsigned_integer(const std::string& key, uint64_t default_value);
    // A size in bytes, 1 .. 2^30 (blocks and batches).
    uint64_t byte_size(const std::string& key, uint64_t default_value);
    double number(const std::string& key, double default_value);
    bool boolean(const std::string& key, bool default_value);
    // A sub-object or array, or null when absent.
    const nlohmann::json& raw(const std::string& key);

    // Throws a ConfigError for every key of the entry that no one read.
    void reject_unread() const;
    const std::set<std::string>& keys_read() const { return read_; }

private:
    const NodeSpec& spec_;
    std::set<std::string> read_{"kind", "name"};
};

}  // namespace invidx
