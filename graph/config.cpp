#include "invidx/config.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <limits>
#include <thread>

#include "graph/utf8_check.hpp"
#include "graph/word_list_file.hpp"
#include "invidx/collections.hpp"
#include "invidx/error.hpp"
#include "invidx/input_format.hpp"
#include "invidx/pre_weighted_analysis.hpp"

namespace invidx {
namespace {

using nlohmann::json;

std::string type_name(const json& value) { return value.type_name(); }

// "a string", "an array": for messages about a value's type.
std::string type_article(const json& value) {
    const std::string name = value.type_name();
    return (name == "array" || name == "object" ? "an " : "a ") + name;
}

// "/nodes/3" for an entry of root's "nodes".
std::string node_pointer(const json& root, const json& node) {
    const json& nodes = root.at("nodes");
    for (size_t i = 0; i < nodes.size(); ++i)
        if (&nodes[i] == &node) return "/nodes/" + std::to_string(i);
    return "/nodes";
}

// Walks one JSON object, handing out its keys and rejecting unknown ones.
class ObjectReader {
public:
    ObjectReader(const json& object, std::string pointer) : object_(object), pointer_(std::move(pointer)) {
        if (!object_.is_object()) throw ConfigError(pointer_, "expected an object, got " + type_name(object_));
    }

    const json* find(const std::string& key) {
        known_.push_back(key);
        auto it = object_.find(key);
        return it == object_.end() ? nullptr : &*it;
    }
    std::string at(const std::string& key) const { return pointer_ + "/" + key; }

    void reject_unknown() const {
        for (auto it = object_.begin(); it != object_.end(); ++it) {
            if (std::find(known_.begin(), known_.end(), it.key()) != known_.end()) continue;
            std::string list;
            for (const auto& k : known_) list += (list.empty() ? "" : ", ") + k;
            throw ConfigError(at(it.key()), "unknown key '" + it.key() + "'; known keys here: " + list);
        }
    }

private:
    const json& object_;
    std::string pointer_;
    std::vector<std::string> known_;
};

// A JSON integer read into T, checked against [minimum, maximum] before it
// is narrowed, so a value never wraps (2^32 + 1 tokens is an error, not 1).
template <class T>
T read_integer(const json& value, const std::string& pointer, T minimum, T maximum) {
    const std::string range = "[" + std::to_string(minimum) + ", " + std::to_string(maximum) + "]";
    if (!value.is_number_integer())
        throw ConfigError(pointer, "expected an integer in " + range + ", got " + config_value_text(value));
    const bool in_range = value.is_number_unsigned()
                              ? value.get<uint64_t>() >= static_cast<uint64_t>(minimum) &&
                                    value.get<uint64_t>() <= static_cast<uint64_t>(maximum)
                              : value.get<int64_t>() >= 0 && static_cast<uint64_t>(value.get<int64_t>()) >= minimum &&
                                    static_cast<uint64_t>(value.get<int64_t>()) <= maximum;
    if (!in_range) throw ConfigError(pointer, "must lie in " + range + ", got " + config_value_text(value));
    return static_cast<T>(value.get<uint64_t>());
}

uint64_t read_unsigned(const json& value, const std::string& pointer, uint64_t minimum = 0) {
    return read_integer<uint64_t>(value, pointer, minimum, std::numeric_limits<uint64_t>::max());
}

std::string read_string(const json& value, const std::string& pointer) {
    if (!value.is_string()) throw ConfigError(pointer, "expected a string, got " + config_value_text(value));
    return value.get<std::string>();
}

bool read_bool(const json& value, const std::string& pointer) {
    if (!value.is_boolean()) throw ConfigError(pointer, "expected true or false, got " + config_value_text(value));
    return value.get<bool>();
}

double read_number(const json& value, const std::string& pointer) {
    if (!value.is_number()) throw ConfigError(pointer, "expected a number, got " + config_value_text(value));
    return value.get<double>();
}

InputConfig read_input(const json& value, const std::string& pointer) {
    InputConfig input;
    if (value.is_string()) {
        input.path = value.get<std::string>();
    } else {
        ObjectReader reader(value, pointer);
        const json* path = reader.find("path");
        if (!path) throw ConfigError(pointer + "/path", "missing: every input needs a path");
        input.path = read_string(*path, reader.at("path"));
        if (const json* format = reader.find("format")) input.format = read_string(*format, reader.at("format"));
        reader.reject_unknown();
    }
    if (input.path.empty()) throw ConfigError(pointer, "input path is empty");
    // Checked here; the name travels on (InputFile::format, the manifest).
    input_format_setting(input.format, pointer + (value.is_string() ? "" : "/format"));
    return input;
}

void read_analysis(const json& value, const std::string& pointer, AnalysisSettings& analysis) {
    ObjectReader reader(value, pointer);
    if (const json* stopwords = reader.find("stopwords")) {
        const std::string at = reader.at("stopwords");
        if (stopwords->is_string()) {
            const auto name = stopwords->get<std::string>();
            if (name == "english") {
                analysis.stopwords = english_stopwords();
            } else if (name == "none") {
                analysis.stopwords.clear();
            } else {
                throw ConfigError(at, "unknown stopword list '" + name + "'; use \"english\", \"none\", a list of words or {\"file\": PATH}");
            }
            analysis.stopwords_name = name;
        } else if (stopwords->is_array()) {
            analysis.stopwords.clear();
            for (size_t i = 0; i < stopwords->size(); ++i) {
                const std::string pointer = at + "/" + std::to_string(i);
                std::string word = read_string((*stopwords)[i], pointer);
                // The list goes into manifest.json, which holds UTF-8 only
                // (a --set value may carry any bytes).
                if (const auto bad = first_invalid_utf8(word))
                    throw ConfigError(pointer, "byte " + std::to_string(*bad) + " of the stop word is not UTF-8");
                analysis.stopwords.push_back(std::move(word));
            }
            analysis.stopwords_name = "custom";
        } else if (stopwords->is_object()) {
            ObjectReader file_reader(*stopwords, at);
            const json* file = file_reader.find("file");
            if (!file) throw ConfigError(at + "/file", "missing: a stopword file path");
            file_reader.reject_unknown();
            analysis.stopwords = read_word_list_file(read_string(*file, at + "/file"), at + "/file");
            analysis.stopwords_name = "custom";
        } else {
            throw ConfigError(at, "expected \"english\", \"none\", a list of words or {\"file\": PATH}");
        }
    }
    if (const json* stemmer = reader.find("stemmer")) {
        analysis.stemmer = read_string(*stemmer, reader.at("stemmer"));
        if (analysis.stemmer != "porter" && analysis.stemmer != "none")
            throw ConfigError(reader.at("stemmer"), "unknown stemmer '" + analysis.stemmer + "'; known: porter, none");
    }
    if (const json* html = reader.find("html")) {
        ObjectReader html_reader(*html, reader.at("html"));
        for (const auto& row : kInputFormats) {
            const std::string name(row.name);
            if (const json* v = html_reader.find(name)) analysis.html[row.format] = read_bool(*v, html_reader.at(name));
        }
        html_reader.reject_unknown();
    }
    if (const json* v = reader.find("vector_scale"))
        analysis.vector_scale = read_integer<uint32_t>(*v, reader.at("vector_scale"), 1, uint32_t{1} << 24);
    reader.reject_unknown();
}

// An input naming jsonvector makes the build pre-weighted (docs/PIPELINE.md,
// "Pre-weighted documents"): then no input may name a text format, and
// there are no positions to keep.
void settle_pre_weighted(PipelineConfig& config, bool inputs_in_array) {
    const auto format_pointer = [&](size_t i) {
        return (inputs_in_array ? "/input/" + std::to_string(i) : std::string("/input")) + "/format";
    };
    std::optional<size_t> vector_input;
    for (size_t i = 0; i < config.inputs.size() && !vector_input; ++i)
        if (config.inputs[i].format == input_format_name(InputFormat::jsonvector)) vector_input = i;
    if (!vector_input) return;
    for (size_t i = 0; i < config.inputs.size(); ++i) {
        const std::string& format = config.inputs[i].format;
        if (format == kAutoInputFormat || format == input_format_name(InputFormat::jsonvector)) continue;
        throw ConfigError(format_pointer(i), "input format '" + format + "' beside jsonvector (" +
                                                 format_pointer(*vector_input) +
                                                 "): a pipeline indexes either text or pre-weighted term vectors, "
                                                 "not both");
    }
    if (config.analysis.positions) {
        throw ConfigError("/positions", "pre-weighted documents (jsonvector, " + format_pointer(*vector_input) +
                                            ") have no positions: leave \"positions\" out or false");
    }
    make_pre_weighted(config.analysis);
}

void read_memory(const json& value, const std::string& pointer, MemoryConfig& memory) {
    ObjectReader reader(value, pointer);
    if (const json* v = reader.find("tokens")) {
        if (!(v->is_string() && v->get<std::string>() == "auto"))
            memory.tokens = read_integer<uint32_t>(*v, reader.at("tokens"), 2, kMaxMemoryTokens);
    }
    struct Size {
        const char* name;
        uint64_t* field;
        uint64_t maximum;
    };
    const auto is_auto = [](const json* v) { return v && v->is_string() && v->get<std::string>() == "auto"; };
    const json* batch = reader.find("batch_bytes");
    memory.batch_bytes_auto = is_auto(batch);
    const Size sizes[] = {{"read_block_bytes", &memory.read_block_bytes, kMaxBlockBytes},
                          {"batch_bytes", &memory.batch_bytes, kMaxBlockBytes},
                          {"run_bytes", &memory.run_bytes, kMaxRunBytes}};
    for (const auto& [name, field, maximum] : sizes) {
        const json* v = reader.find(name);
        if (v && !(field == &memory.batch_bytes && memory.batch_bytes_auto))
            *field = read_integer<uint64_t>(*v, reader.at(name), 1, maximum);
    }
    // "auto" and absent alike leave it to the plan.
    const json* text_block = reader.find("text_block_bytes");
    if (text_block && !is_auto(text_block))
        memory.text_block_bytes = read_integer<uint64_t>(*text_block, reader.at("text_block_bytes"), 1, kMaxBlockBytes);
    reader.reject_unknown();
}

void read_sampler(const json& value, const std::string& pointer, SamplerConfig& sampler) {
    ObjectReader reader(value, pointer);
    if (const json* v = reader.find("enabled")) sampler.enabled = read_bool(*v, reader.at("enabled"));
    if (const json* v = reader.find("bytes_per_file"))
        sampler.bytes_per_file = read_integer<uint64_t>(*v, reader.at("bytes_per_file"), 0, kMaxBlockBytes);
    if (const json* v = reader.find("max_bytes"))
        sampler.max_bytes = read_integer<uint64_t>(*v, reader.at("max_bytes"), 0, kMaxRunBytes);
    if (const json* v = reader.find("popular_token_fraction"); v && !(v->is_string() && *v == "auto")) {
        sampler.popular_token_fraction = read_number(*v, reader.at("popular_token_fraction"));
        if (*sampler.popular_token_fraction < 0 || *sampler.popular_token_fraction > 1)
            throw ConfigError(reader.at("popular_token_fraction"), "must be \"auto\" or between 0 and 1");
    }
    if (const json* v = reader.find("max_popular"))
        sampler.max_popular = read_integer<uint32_t>(*v, reader.at("max_popular"), 0, kCollections);
    reader.reject_unknown();
}

// The mode named `word` among `modes` (word, value), or a ConfigError at
// `pointer` saying what `what` is and listing the known words.
template <class Mode, size_t N>
Mode read_mode(const json& value, const std::string& pointer, const std::string& what,
               const std::pair<const char*, Mode> (&modes)[N]) {
    const std::string word = read_string(value, pointer);
    std::string known;
    for (const auto& [name, mode] : modes) {
        if (word == name) return mode;
        known += (known.empty() ? "" : ", ") + std::string(name);
    }
    throw ConfigError(pointer, "unknown " + what + " '" + word + "'; known: " + known);
}

constexpr std::pair<const char*, ClusterMode> kClusterModes[] = {{"partition", ClusterMode::partition},
                                                                 {"files", ClusterMode::files}};
constexpr std::pair<const char*, FileAssignment> kFileAssignments[] = {{"work", FileAssignment::by_work},
                                                                       {"size", FileAssignment::by_size},
                                                                       {"count", FileAssignment::by_count}};
constexpr std::pair<const char*, DictionaryJoinMode> kDictionaryJoins[] = {{"parallel", DictionaryJoinMode::parallel},
                                                                       {"serial", DictionaryJoinMode::serial}};
constexpr std::pair<const char*, ProgressMode> kProgressModes[] = {{"auto", ProgressMode::automatic},
                                                                   {"bar", ProgressMode::bar},
                                                                   {"lines", ProgressMode::lines},
                                                                   {"off", ProgressMode::off}};
constexpr std::pair<const char*, DuplicateIdPolicy> kDuplicateIdPolicies[] = {{"warn", DuplicateIdPolicy::warn},
                                                                              {"error", DuplicateIdPolicy::error}};

template <class Mode, size_t N>
std::string_view name_in(Mode mode, const std::pair<const char*, Mode> (&modes)[N]) {
    for (const auto& [name, value] : modes)
        if (value == mode) return name;
    return "?";
}

void read_cluster(const json& value, const std::string& pointer, ClusterConfig& cluster) {
    ObjectReader reader(value, pointer);
    if (const json* v = reader.find("mode")) cluster.mode = read_mode(*v, reader.at("mode"), "cluster mode", kClusterModes);
    if (const json* v = reader.find("assign_files"))
        cluster.assign_files = read_mode(*v, reader.at("assign_files"), "way to assign files", kFileAssignments);
    if (const json* v = reader.find("stream_file_weight"); v && !(v->is_string() && *v == "auto")) {
        const double weight = read_number(*v, reader.at("stream_file_weight"));
        if (!(weight >= 0.1 && weight <= 10))
            throw ConfigError(reader.at("stream_file_weight"), "must be \"auto\" or a number from 0.1 to 10");
        cluster.stream_file_weight = weight;
        // A weight that cuts nothing would be a setting without effect.
        if (cluster.assign_files != FileAssignment::by_work)
            throw ConfigError(reader.at("stream_file_weight"),
                              "weighs files only where \"assign_files\" is \"work\" (it is \"" +
                                  std::string(mode_name(cluster.assign_files)) + "\")");
    }
    if (const json* v = reader.find("join"))
        cluster.join = read_mode(*v, reader.at("join"), "way to join the dictionary", kDictionaryJoins);
    if (const json* v = reader.find("exchange_credits")) {
        if (!(v->is_string() && v->get<std::string>() == "auto")) {
            cluster.exchange_credits = read_integer<uint32_t>(*v, reader.at("exchange_credits"), 1, 1000000);
        }
    }
    reader.reject_unknown();
}

void read_store(const json& value, const std::string& pointer, StoreConfig& store) {
    ObjectReader reader(value, pointer);
    if (const json* v = reader.find("documents")) store.documents = read_bool(*v, reader.at("documents"));
    // zlib's scale as libdeflate extends it (store/block_compression.hpp).
    if (const json* v = reader.find("level")) store.level = static_cast<int>(read_integer<uint32_t>(*v, reader.at("level"), 0, 12));
    reader.reject_unknown();
}

void read_report(const json& value, const std::string& pointer, ReportConfig& report) {
    ObjectReader reader(value, pointer);
    if (const json* v = reader.find("timeline_ms"))
        report.timeline_ms = read_integer<uint32_t>(*v, reader.at("timeline_ms"), 0, 60000);
    reader.reject_unknown();
}

// The dotted key of an override ("memory.tokens") as path segments.
std::vector<std::string> key_segments(const std::string& key) {
    std::vector<std::string> segments;
    for (size_t start = 0;;) {
        const auto dot = key.find('.', start);
        segments.push_back(key.substr(start, dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    return segments;
}

// The node of root's "nodes" whose name (or, unnamed, kind) is `name`; the
// last such, as a later entry overrides an earlier one.
json* node_named(json& root, const std::string& name) {
    auto nodes = root.find("nodes");
    if (nodes == root.end() || !nodes->is_array()) return nullptr;
    json* match = nullptr;
    for (auto& node : *nodes) {
        if (!node.is_object()) continue;
        auto given = node.find("name");
        if (given == node.end()) given = node.find("kind");
        if (given != node.end() && given->is_string() && given->get<std::string>() == name) match = &node;
    }
    return match;
}

// The element of `array` that `segment` numbers, or a ConfigError at
// `pointer` (the array's) naming the override.
json& array_element(json& array, const std::string& segment, const std::string& pointer, const std::string& key) {
    size_t index = 0;
    const auto [end, error] = std::from_chars(segment.data(), segment.data() + segment.size(), index);
    if (segment.empty() || error != std::errc() || end != segment.data() + segment.size())
        throw ConfigError(pointer, "--set " + key + ": '" + segment + "' is not an index of this array");
    if (index >= array.size())
        throw ConfigError(pointer, "--set " + key + ": index " + segment + " is out of range (the array has " +
                                       std::to_string(array.size()) + " elements)");
    return array[index];
}

// The member of `container` that `segment` names, made (null) where an
// object or null lacks it; a ConfigError naming the override where the
// container is a string, number or boolean, which has no members.
json& member(json& container, const std::string& segment, const std::string& pointer, const std::string& key) {
    if (container.is_array()) return array_element(container, segment, pointer, key);
    if (container.is_null()) container = json::object();
    if (!container.is_object())
        throw ConfigError(pointer, "--set " + key + ": " + (pointer.empty() ? "/" : pointer) + " is " +
                                       type_article(container) + ", which has no key '" + segment + "'");
    return container[segment];
}

}  // namespace

// memory.text_block_bytes "auto" (the default): 4 MiB, or two batches where
// that is more. The frame node copies the text of the batch it is filling
// at each block's end (so that no batch in progress holds a token), so
// blocks shorter than two batches copy most of the text (docs/PIPELINE.md).
uint64_t auto_text_block_bytes(uint64_t batch_bytes) {
    return std::max<uint64_t>(uint64_t{4} << 20, 2 * batch_bytes);
}


std::string config_value_text(const json& value) {
    // Replaces bytes that are not UTF-8 (a --set value may hold any) so a
    // message about a value never fails itself.
    return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

void apply_override(json& root, const std::string& key, json value) {
    if (!root.is_object())
        throw ConfigError("", "expected the pipeline to be a JSON object, got " + type_article(root) + "; cannot set '" +
                                  key + "'");
    const std::vector<std::string> segments = key_segments(key);
    json* current = &root;
    std::string pointer;
    for (size_t i = 0; i + 1 < segments.size(); ++i) {
        const std::string& segment = segments[i];
        // A first segment that is no top-level key may name a node ("parse").
        json* node = i == 0 && !root.contains(segment) ? node_named(root, segment) : nullptr;
        current = node ? node : &member(*current, segment, pointer, key);
        pointer = node ? node_pointer(root, *node) : pointer + "/" + segment;
    }
    member(*current, segments.back(), pointer, key) = std::move(value);
}

void apply_override(json& root, const std::string& assignment) {
    const auto equals = assignment.find('=');
    if (equals == std::string::npos || equals == 0)
        throw ConfigError("", "--set expects key=value, got '" + assignment + "'");
    const std::string text = assignment.substr(equals + 1);
    json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) value = text;  // a bare word is a string
    apply_override(root, assignment.substr(0, equals), std::move(value));
}

json read_pipeline_file(const std::filesystem::path& file) {
    std::ifstream in(file);
    if (!in) throw Error("cannot read pipeline file '" + file.string() + "'");
    try {
        return json::parse(in);
    } catch (const json::parse_error& error) {
        throw Error("pipeline file '" + file.string() + "' is not valid JSON: " + error.what());
    }
}

PipelineConfig PipelineConfig::from_json(json root, const std::vector<std::string>& overrides) {
    if (!root.is_object()) throw ConfigError("", "expected the pipeline to be a JSON object, got " + type_article(root));
    for (const auto& assignment : overrides) apply_override(root, assignment);

    PipelineConfig config;
    ObjectReader reader(root, "");
    if (const json* v = reader.find("description")) config.description = read_string(*v, "/description");
    bool inputs_in_array = false;
    if (const json* v = reader.find("input")) {
        inputs_in_array = v->is_array();
        if (v->is_array()) {
            for (size_t i = 0; i < v->size(); ++i) config.inputs.push_back(read_input((*v)[i], "/input/" + std::to_string(i)));
        } else {
            config.inputs.push_back(read_input(*v, "/input"));
        }
    }
    if (const json* v = reader.find("output")) {
        config.output = read_string(*v, "/output");
        if (config.output.empty()) throw ConfigError("/output", "output directory is empty");
    }
    if (const json* v = reader.find("analysis")) read_analysis(*v, "/analysis", config.analysis);
    if (const json* v = reader.find("positions")) config.analysis.positions = read_bool(*v, "/positions");
    settle_pre_weighted(config, inputs_in_array);
    if (const json* v = reader.find("memory")) read_memory(*v, "/memory", config.memory);
    if (const json* v = reader.find("sampler")) read_sampler(*v, "/sampler", config.sampler);
    if (const json* v = reader.find("store")) read_store(*v, "/store", config.store);
    if (const json* v = reader.find("report")) read_report(*v, "/report", config.report);
    if (const json* v = reader.find("cluster")) read_cluster(*v, "/cluster", config.cluster.emplace());
    if (config.cluster && config.store.documents) {
        throw ConfigError("/store/documents", "a cluster build does not write the document store yet; "
                                              "build on one machine to keep the documents' text");
    }
    if (const json* v = reader.find("progress")) {
        config.progress = read_mode(*v, "/progress", "progress mode", kProgressModes);
    }
    if (const json* v = reader.find("on_duplicate_id")) {
        config.on_duplicate_id = read_mode(*v, "/on_duplicate_id", "on_duplicate_id policy", kDuplicateIdPolicies);
    }
    const json* nodes = reader.find("nodes");
    if (!nodes) throw ConfigError("/nodes", "missing: the list of nodes of the graph");
    if (!nodes->is_array() || nodes->empty()) throw ConfigError("/nodes", "expected a non-empty array of nodes");
    std::set<std::string> names;
    for (size_t i = 0; i < nodes->size(); ++i) {
        const std::string pointer = "/nodes/" + std::to_string(i);
        const json& entry = (*nodes)[i];
        if (!entry.is_object()) throw ConfigError(pointer, "expected an object with a \"kind\"");
        auto kind = entry.find("kind");
        if (kind == entry.end()) throw ConfigError(pointer + "/kind", "missing: every node needs a kind");
        NodeSpec spec;
        spec.kind = read_string(*kind, pointer + "/kind");
        spec.name = entry.contains("name") ? read_string(entry["name"], pointer + "/name") : spec.kind;
        spec.pointer = pointer;
        spec.options = entry;
        if (!names.insert(spec.name).second)
            throw ConfigError(pointer + "/name", "node name '" + spec.name + "' is used twice; give one a \"name\"");
        config.nodes.push_back(std::move(spec));
    }
    reader.reject_unknown();
    if (config.memory.batch_bytes > (1ull << 30)) throw ConfigError("/memory/batch_bytes", "must not exceed 2^30");
    return config;
}

PipelineConfig PipelineConfig::from_file(const std::filesystem::path& file, const std::vector<std::string>& overrides) {
    return from_json(read_pipeline_file(file), overrides);
}

NodeOptions::NodeOptions(const NodeSpec& spec) : spec_(spec) {}

NodeOptions::NodeOptions(const NodeSpec& spec, const std::set<std::string>& already_read) : spec_(spec) {
    read_.insert(already_read.begin(), already_read.end());
}

unsigned NodeOptions::count(unsigned auto_value, unsigned default_value) {
    read_.insert("count");
    auto it = spec_.options.find("count");
    if (it == spec_.options.end()) return default_value;
    if (it->is_string() && it->get<std::string>() == "auto") return std::max(1u, auto_value);
    return read_integer<unsigned>(*it, pointer("count"), 1, kMaxNodeCount);
}

std::string NodeOptions::string(const std::string& key, const std::string& default_value) {
    read_.insert(key);
    auto it = spec_.options.find(key);
    return it == spec_.options.end() ? default_value : read_string(*it, pointer(key));
}

uint64_t NodeOptions::unsigned_integer(const std::string& key, uint64_t default_value) {
    read_.insert(key);
    auto it = spec_.options.find(key);
    return it == spec_.options.end() ? default_value : read_unsigned(*it, pointer(key));
}

uint64_t NodeOptions::byte_size(const std::string& key, uint64_t default_value) {
    const uint64_t value = unsigned_integer(key, default_value);
    if (value == 0 || value > (1ull << 30)) throw ConfigError(pointer(key), "must be between 1 and 2^30 bytes");
    return value;
}

double NodeOptions::number(const std::string& key, double default_value) {
    read_.insert(key);
    auto it = spec_.options.find(key);
    return it == spec_.options.end() ? default_value : read_number(*it, pointer(key));
}

bool NodeOptions::boolean(const std::string& key, bool default_value) {
    read_.insert(key);
    auto it = spec_.options.find(key);
    return it == spec_.options.end() ? default_value : read_bool(*it, pointer(key));
}

const nlohmann::json& NodeOptions::raw(const std::string& key) {
    static const json null_value;
    read_.insert(key);
    auto it = spec_.options.find(key);
    return it == spec_.options.end() ? null_value : *it;
}

void NodeOptions::reject_unread() const {
    for (auto it = spec_.options.begin(); it != spec_.options.end(); ++it) {
        if (read_.count(it.key())) continue;
        std::string list;
        for (const auto& k : read_) list += (list.empty() ? "" : ", ") + k;
        throw ConfigError(pointer(it.key()), "unknown key '" + it.key() + "' for node kind '" + spec_.kind +
                                                 "'; known keys: " + list);
    }
}

std::string_view mode_name(ClusterMode mode) { return name_in(mode, kClusterModes); }
std::string_view mode_name(FileAssignment assignment) { return name_in(assignment, kFileAssignments); }
std::string_view mode_name(DictionaryJoinMode join) { return name_in(join, kDictionaryJoins); }
std::string_view mode_name(ProgressMode mode) { return name_in(mode, kProgressModes); }
std::string_view mode_name(DuplicateIdPolicy policy) { return name_in(policy, kDuplicateIdPolicies); }

}  // namespace invidx
