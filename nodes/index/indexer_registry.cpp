#include "nodes/index/indexer_registry.hpp"

#include "invidx/error.hpp"
#include "nodes/index/cpu_btree_indexer.hpp"

namespace invidx {

void IndexerRegistry::add(std::string kind, std::string description, IndexerFactory factory,
                          IndexerValidator validate) {
    std::lock_guard lock(mutex_);
    ensure(kinds_.find(kind) == kinds_.end(), "indexer kind '" + kind + "' is registered twice");
    kinds_.emplace(std::move(kind), Entry{std::move(description), std::move(factory), std::move(validate)});
}

void IndexerRegistry::validate(const IndexerSpec& spec) const {
    IndexerValidator validate;
    {
        std::lock_guard lock(mutex_);
        auto it = kinds_.find(spec.kind);
        if (it == kinds_.end()) return;
        validate = it->second.validate;
    }
    if (validate) validate(spec);
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
               [](const IndexerSpec& spec) {
                   if (spec.device != "cpu")
                       throw ConfigError(spec.pointer + "/device",
                                         "indexer kind 'cpu_btree' runs on device \"cpu\", not \"" + spec.device + "\"");
               });
        // Configured but not implemented is an error, never a silent CPU fallback.
        const auto gpu_not_available = [](const IndexerSpec& spec) {
            throw ConfigError(spec.pointer + "/kind",
                              "indexer kind 'gpu_btree' (device \"" + spec.device +
                                  "\") is not implemented in this version of invidx: GPU indexers arrive "
                                  "with issue #3. Use \"cpu_btree\" indexers, e.g. configs/cpu-6-2.json");
        };
        r->add("gpu_btree", "B-tree indexer on a CUDA GPU (Wei & JaJa §III.D) — not available yet",
               [gpu_not_available](const IndexerSpec& spec) -> std::unique_ptr<IndexerBackend> {
                   gpu_not_available(spec);
                   return nullptr;
               },
               gpu_not_available);
        return r;
    }();
    return *registry;
}

}  // namespace invidx
