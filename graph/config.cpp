#include "invidx/config.hpp"

#include <algorithm>
#include <fstream>
#include <thread>

#include "invidx/error.hpp"
#include "invidx/input_format.hpp"

namespace invidx {
namespace {

using nlohmann::json;

std::string type_name(const json& value) { return value.type_name(); }

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

uint64_t read_unsigned(const json& value, const std::string& pointer, uint64_t minimum = 0) {
    if (!value.is_number_integer() || (value.is_number_integer() && value.get<int64_t>() < 0 && !value.is_number_unsigned()))
        throw ConfigError(pointer, "expected a non-negative integer, got " + value.dump());
    const auto result = value.get<uint64_t>();
    if (result < minimum) throw ConfigError(pointer, "must be at least " + std::to_string(minimum) + ", got " + value.dump());
    return result;
}

std::string read_string(const json& value, const std::string& pointer) {
    if (!value.is_string()) throw ConfigError(pointer, "expected a string, got " + value.dump());
    return value.get<std::string>();
}

bool read_bool(const json& value, const std::string& pointer) {
    if (!value.is_boolean()) throw ConfigError(pointer, "expected true or false, got " + value.dump());
    return value.get<bool>();
}

double read_number(const json& value, const std::string& pointer) {
    if (!value.is_number()) throw ConfigError(pointer, "expected a number, got " + value.dump());
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

std::vector<std::string> read_word_list_file(const std::string& path, const std::string& pointer) {
    std::ifstream in(path);
    if (!in) throw ConfigError(pointer, "cannot read stopword file '" + path + "'");
    std::vector<std::string> words;
    for (std::string line; std::getline(in, line);) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
        if (!line.empty() && line[0] != '#') words.push_back(line);
    }
    return words;
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
            for (size_t i = 0; i < stopwords->size(); ++i)
                analysis.stopwords.push_back(read_string((*stopwords)[i], at + "/" + std::to_string(i)));
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
    reader.reject_unknown();
}

void read_memory(const json& value, const std::string& pointer, MemoryConfig& memory) {
    ObjectReader reader(value, pointer);
    if (const json* v = reader.find("tokens")) {
        if (!(v->is_string() && v->get<std::string>() == "auto"))
            memory.tokens = static_cast<uint32_t>(read_unsigned(*v, reader.at("tokens"), 2));
    }
    const std::pair<const char*, uint64_t*> sizes[] = {{"read_block_bytes", &memory.read_block_bytes},
                                                       {"text_block_bytes", &memory.text_block_bytes},
                                                       {"batch_bytes", &memory.batch_bytes},
                                                       {"run_bytes", &memory.run_bytes}};
    for (const auto& [name, field] : sizes)
        if (const json* v = reader.find(name)) *field = read_unsigned(*v, reader.at(name), 1);
    reader.reject_unknown();
}

void read_sampler(const json& value, const std::string& pointer, SamplerConfig& sampler) {
    ObjectReader reader(value, pointer);
    if (const json* v = reader.find("enabled")) sampler.enabled = read_bool(*v, reader.at("enabled"));
    if (const json* v = reader.find("bytes_per_file")) sampler.bytes_per_file = read_unsigned(*v, reader.at("bytes_per_file"));
    if (const json* v = reader.find("max_bytes")) sampler.max_bytes = read_unsigned(*v, reader.at("max_bytes"));
    if (const json* v = reader.find("popular_token_fraction"); v && !(v->is_string() && *v == "auto")) {
        sampler.popular_token_fraction = read_number(*v, reader.at("popular_token_fraction"));
        if (*sampler.popular_token_fraction < 0 || *sampler.popular_token_fraction > 1)
            throw ConfigError(reader.at("popular_token_fraction"), "must be \"auto\" or between 0 and 1");
    }
    if (const json* v = reader.find("max_popular")) sampler.max_popular = static_cast<uint32_t>(read_unsigned(*v, reader.at("max_popular")));
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
constexpr std::pair<const char*, FileAssignment> kFileAssignments[] = {{"size", FileAssignment::by_size},
                                                                       {"count", FileAssignment::by_count}};
constexpr std::pair<const char*, DictionaryJoinMode> kDictionaryJoins[] = {{"parallel", DictionaryJoinMode::parallel},
                                                                       {"serial", DictionaryJoinMode::serial}};
constexpr std::pair<const char*, ProgressMode> kProgressModes[] = {{"auto", ProgressMode::automatic},
                                                                   {"bar", ProgressMode::bar},
                                                                   {"lines", ProgressMode::lines},
                                                                   {"off", ProgressMode::off}};

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
    if (const json* v = reader.find("join"))
        cluster.join = read_mode(*v, reader.at("join"), "way to join the dictionary", kDictionaryJoins);
    if (const json* v = reader.find("exchange_credits")) {
        if (!(v->is_string() && v->get<std::string>() == "auto")) {
            const uint64_t credits = read_unsigned(*v, reader.at("exchange_credits"));
            if (credits == 0 || credits > 1000000)
                throw ConfigError(reader.at("exchange_credits"), "must be \"auto\" or between 1 and 1000000");
            cluster.exchange_credits = static_cast<uint32_t>(credits);
        }
    }
    reader.reject_unknown();
}

// "memory.tokens" -> path segments; a first segment naming a node ("parse")
// is resolved to "nodes/<i>".
json* resolve_override_target(json& root, const std::vector<std::string>& segments, const std::string& assignment) {
    json* current = &root;
    for (size_t i = 0; i + 1 < segments.size(); ++i) {
        const std::string& segment = segments[i];
        if (current == &root && !root.contains(segment) && root.contains("nodes") && root["nodes"].is_array()) {
            json* match = nullptr;
            for (auto& node : root["nodes"]) {
                const std::string name = node.value("name", node.value("kind", std::string()));
                if (name == segment) match = &node;
            }
            if (match) {
                current = match;
                continue;
            }
        }
        if (current->is_array()) {
            size_t index = 0;
            try {
                index = std::stoul(segment);
            } catch (...) {
                throw ConfigError("", "--set " + assignment + ": '" + segment + "' is not an array index");
            }
            if (index >= current->size()) throw ConfigError("", "--set " + assignment + ": index " + segment + " is out of range");
            current = &(*current)[index];
        } else {
            if (!current->is_object() && !current->is_null())
                throw ConfigError("", "--set " + assignment + ": '" + segment + "' is not an object");
            current = &(*current)[segment];
        }
    }
    return current;
}

}  // namespace

void apply_override(json& root, const std::string& assignment) {
    const auto equals = assignment.find('=');
    if (equals == std::string::npos || equals == 0)
        throw ConfigError("", "--set expects key=value, got '" + assignment + "'");
    const std::string key = assignment.substr(0, equals);
    const std::string text = assignment.substr(equals + 1);
    std::vector<std::string> segments;
    for (size_t start = 0;;) {
        const auto dot = key.find('.', start);
        segments.push_back(key.substr(start, dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) value = text;  // a bare word is a string
    json* parent = resolve_override_target(root, segments, assignment);
    if (parent->is_array()) {
        size_t index = std::stoul(segments.back());
        if (index >= parent->size()) throw ConfigError("", "--set " + assignment + ": index out of range");
        (*parent)[index] = value;
    } else {
        (*parent)[segments.back()] = value;
    }
}

PipelineConfig PipelineConfig::from_json(json root, const std::vector<std::string>& overrides) {
    for (const auto& assignment : overrides) apply_override(root, assignment);

    PipelineConfig config;
    ObjectReader reader(root, "");
    if (const json* v = reader.find("description")) config.description = read_string(*v, "/description");
    if (const json* v = reader.find("input")) {
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
    if (const json* v = reader.find("memory")) read_memory(*v, "/memory", config.memory);
    if (const json* v = reader.find("sampler")) read_sampler(*v, "/sampler", config.sampler);
    if (const json* v = reader.find("cluster")) read_cluster(*v, "/cluster", config.cluster.emplace());
    if (const json* v = reader.find("progress")) {
        config.progress = read_mode(*v, "/progress", "progress mode", kProgressModes);
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
    std::ifstream in(file);
    if (!in) throw Error("cannot read pipeline file '" + file.string() + "'");
    json root;
    try {
        root = json::parse(in);
    } catch (const json::parse_error& error) {
        throw Error("pipeline file '" + file.string() + "' is not valid JSON: " + error.what());
    }
    return from_json(std::move(root), overrides);
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
    const auto value = read_unsigned(*it, pointer("count"), 1);
    if (value > 4096) throw ConfigError(pointer("count"), "too large: " + std::to_string(value));
    return static_cast<unsigned>(value);
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

}  // namespace invidx
