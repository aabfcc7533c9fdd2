#include "invidx/indexer_registry.hpp"

#include <algorithm>

#include "devices/gpu_devices.hpp"
#include "devices/gpu_unusable.hpp"
#include "invidx/error.hpp"
#include "nodes/index/cpu_btree_indexer.hpp"
#include "nodes/index/gpu_indexer.hpp"

namespace invidx {

namespace {

// The GPU an entry names, checked against the GPUs present; a ConfigError
// at <entry>/device otherwise.
int gpu_ordinal(const IndexerSpec& spec, const std::vector<int>& present, const std::string& none_note) {
    const std::string at = spec.pointer + "/device";
    if (!spec.device.is_gpu()) {
        throw ConfigError(at, "indexer kind '" + spec.kind + "' runs on a GPU: set \"device\" to \"gpu:0\", "
                              "\"gpu:1\", ..., not \"" + spec.device.name() + "\"");
    }
    if (const auto reason = gpu_unusable_reason(spec.device.ordinal, present, none_note)) {
        throw ConfigError(at, "\"" + spec.device.name() + "\" is not available: " + *reason +
                                  "; use \"cpu_btree\" indexers, e.g. configs/cpu-6-2.json");
    }
    return spec.device.ordinal;
}

// At the time the indexer is made: the GPUs CUDA sees now.
int present_gpu_ordinal(const IndexerSpec& spec) {
    const GpuInventory gpus = list_gpus();
    std::vector<int> present;
    for (const auto& gpu : gpus.devices) present.push_back(gpu.ordinal);
    return gpu_ordinal(spec, present, gpus.note);
}

void add_gpu_kind(IndexerRegistry& registry, const std::string& kind, GpuDictionaryAlgorithm algorithm,
                  const std::string& description) {
    registry.add(
        kind, description,
        [algorithm](const IndexerSpec& spec) -> std::unique_ptr<IndexerBackend> {
            GpuTermIndexerOptions options;
            options.device = present_gpu_ordinal(spec);
            options.algorithm = algorithm;
            if (spec.staging_occurrences != 0) {
                options.staging_occurrences = spec.staging_occurrences;
                // Room for the terms of that many occurrences (it grows for bigger batches).
                options.staging_term_bytes = 16 * spec.staging_occurrences;
            }
            return std::make_unique<IndexerAdapter<GpuIndexer>>(spec.indexer_id, spec.owned, spec.positional,
                                                                options);
        },
        [](const IndexerSpec& spec, const MachineResources& machine) {
            gpu_ordinal(spec, machine.gpus, machine.gpus_note);
        },
        IndexerInput::host_or_gpu_terms);
}

}  // namespace

void IndexerRegistry::add(std::string kind, std::string description, IndexerFactory factory,
                          IndexerValidator validate, IndexerInput input) {
    std::lock_guard lock(mutex_);
    ensure(kinds_.find(kind) == kinds_.end(), "indexer kind '" + kind + "' is registered twice");
    kinds_.emplace(std::move(kind), Entry{std::move(description), std::move(factory), std::move(validate), input});
}

bool IndexerRegistry::takes_device_terms(const std::string& kind) const {
    std::lock_guard lock(mutex_);
    auto it = kinds_.find(kind);
    return it != kinds_.end() && it->second.input == IndexerInput::host_or_gpu_terms;
}

void IndexerRegistry::validate(const IndexerSpec& spec, const MachineResources& machine) const {
    IndexerValidator validate;
    {
        std::lock_guard lock(mutex_);
        auto it = kinds_.find(spec.kind);
        if (it == kinds_.end()) return;
        validate = it->second.validate;
    }
    if (validate) validate(spec, machine);
}

const IndexerFactory& IndexerRegistry::get(const std::string& kind, const std::string& pointer) const {
    std::lock_guard lock(mutex_);
    auto it = kinds_.find(kind);
    if (it != kinds_.end()) return it->second.factory;
    std::string known;
    for (const auto& [name, _] : kinds_) known += (known.empty() ? "" : ", ") + name;
    throw ConfigError(pointer, "unknown indexer kind '" + kind + "'; known: " + known);
}

std::vector<std::pair<std::string, std::string>> IndexerRegistry::kinds() const {
    std::lock_guard lock(mutex_);
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [name, entry] : kinds_) out.emplace_back(name, entry.description);
    return out;
}

IndexerRegistry& indexer_registry() {
    static IndexerRegistry* registry = [] {
        auto* r = new IndexerRegistry;
        r->add("cpu_btree", "hybrid trie + B-tree dictionary on a CPU thread (Wei & JaJa §III.B)",
               [](const IndexerSpec& spec) -> std::unique_ptr<IndexerBackend> {
                   return std::make_unique<IndexerAdapter<CpuBtreeIndexer>>(spec.indexer_id, spec.owned, spec.positional);
               },
               [](const IndexerSpec& spec, const MachineResources&) {
                   if (!spec.device.is_cpu())
                       throw ConfigError(spec.pointer + "/device", "indexer kind 'cpu_btree' runs on device \"cpu\", not \"" +
                                                                       spec.device.name() + "\"");
               });
        add_gpu_kind(*r, "gpu_hash", GpuDictionaryAlgorithm::hash,
                     "dictionary in a CUDA GPU's memory, one thread per posting probing a hash table; "
                     "postings grouped by a device radix sort (the faster GPU kind)");
        add_gpu_kind(*r, "gpu_btree", GpuDictionaryAlgorithm::btree,
                     "Wei & JaJa's GPU indexer (§III.D.2): a B-tree per trie collection, one 32-thread "
                     "block per collection");
        return r;
    }();
    return *registry;
}

}  // namespace invidx
