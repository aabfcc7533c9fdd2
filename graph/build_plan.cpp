#include "graph/build_plan.hpp"

#include <algorithm>
#include <set>

#include "invidx/error.hpp"

namespace invidx {

std::vector<int> ParsePlan::gpu_ordinals(bool keeping_terms_only) const {
    std::vector<int> ordinals;
    for (const auto& gpu : gpus)
        if (gpu.resident_terms || !keeping_terms_only) ordinals.push_back(gpu.device.ordinal);
    return ordinals;
}

std::vector<Device> IndexPlan::devices() const {
    std::vector<Device> out;
    for (const auto& indexer : indexers) out.push_back(indexer.device);
    return out;
}

std::vector<int> BuildPlan::gpu_ordinals() const {
    std::set<int> ordinals;
    if (parsing)
        for (const int ordinal : parsing->gpu_ordinals()) ordinals.insert(ordinal);
    if (indexing)
        for (const Device& device : indexing->devices())
            if (device.is_gpu()) ordinals.insert(device.ordinal);
    return {ordinals.begin(), ordinals.end()};
}

unsigned settle_count(NodeOptions& options, BuildPlan& plan, unsigned automatic, unsigned absent,
                      const std::string& rule) {
    const nlohmann::json& given = options.spec().options.contains("count") ? options.spec().options.at("count")
                                                                           : nlohmann::json();
    SettledCount count;
    count.node = options.spec().name;
    count.value = options.count(automatic, absent);
    if (given.is_null()) {
        count.why = absent == std::max(1u, automatic) ? "no count: \"auto\", " + rule : "no count: " + std::to_string(absent);
    } else if (given.is_string()) {
        count.why = "\"auto\": " + rule;
    } else {
        count.why = "given";
    }
    plan.counts[options.spec().pointer] = count;
    return count.value;
}

unsigned BuildPlan::count_of(const NodeOptions& options) const {
    const auto it = counts.find(options.spec().pointer);
    ensure(it != counts.end(), "node '" + options.spec().name + "' has no settled count: its kind's resolver did not run");
    return it->second.value;
}

nlohmann::json BuildPlan::to_json() const {
    nlohmann::json out;
    out["machine"] = {{"cores", machine.cores}, {"gpus", machine.gpus}};
    if (machine.gpus.empty()) out["machine"]["gpus_note"] = machine.gpus_note;
    nlohmann::json node_counts = nlohmann::json::object();
    for (const auto& [pointer, count] : counts)
        node_counts[count.node] = {{"count", count.value}, {"why", count.why}, {"at", pointer}};
    out["counts"] = node_counts;
    out["memory_tokens"] = {{"value", tokens}, {"why", tokens_reason}};
    out["memory_batch_bytes"] = {{"value", batch_bytes}, {"text_block_bytes", text_block_bytes}, {"why", batch_bytes_reason}};
    if (parsing) {
        nlohmann::json gpus = nlohmann::json::array();
        for (const auto& gpu : parsing->gpus)
            gpus.push_back({{"device", gpu.device.name()},
                            {"slots", gpu.slots},
                            {"max_batch_bytes", gpu.max_batch_bytes},
                            {"resident_terms", gpu.resident_terms}});
        out["parse"] = {{"cpu_parsers", parsing->cpu_parsers},
                        {"cpu_parsers_why", parsing->cpu_parsers_reason},
                        {"gpus_setting", parsing->gpus_setting},
                        {"gpus", gpus},
                        {"gpus_why", parsing->gpus_reason}};
    }
    if (indexing) {
        nlohmann::json indexers = nlohmann::json::array();
        for (const auto& indexer : indexing->indexers) {
            nlohmann::json entry = {{"kind", indexer.kind}, {"device", indexer.device.name()}};
            if (indexer.placed_automatically) entry["device_setting"] = "auto";
            indexers.push_back(std::move(entry));
        }
        out["index"] = {{"run_bytes", indexing->run_bytes},
                        {"indexers", indexers},
                        {"cpu_indexers_why", indexing->cpu_indexers_reason}};
        if (indexing->any_automatic_device) out["index"]["gpu_indexers_why"] = indexing->automatic_device_reason;
        nlohmann::json routes = nlohmann::json::array();
        for (const auto& [device, indexer] : device_terms_indexer)
            routes.push_back({{"device", Device::gpu(device).name()}, {"indexer", indexer}});
        out["terms_kept_on_device"] = routes;
        out["sampler"] = {{"popular_token_fraction", popular_token_fraction},
                          {"popular_token_fraction_auto", popular_token_fraction_auto}};
    }
    return out;
}

}  // namespace invidx
