// Indexer kinds by name, as "indexers" entries of the index node name them:
// {"kind": "cpu_btree", "count": 2, "device": "cpu"}. An embedding program
// adds its own (examples/embed_custom_indexer.cpp): a factory that makes an
// IndexerBackend (invidx/indexer.hpp) for one indexer of an entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "invidx/device.hpp"
#include "invidx/indexer.hpp"
#include "invidx/machine_resources.hpp"

namespace invidx {

struct IndexerSpec {
    std::string kind;
    Device device;
    std::string pointer;        // JSON pointer of the entry, for errors
    uint32_t indexer_id = 0;    // 0..indexer_count-1 over all entries
    std::vector<bool> owned;    // kCollections entries
    bool positional = false;
    uint64_t staging_occurrences = 0;  // device kinds: per staging buffer, 0 = default
    bool placed_automatically = false;  // "device": "auto" put it there (report)
};

using IndexerFactory = std::function<std::unique_ptr<IndexerBackend>(const IndexerSpec&)>;
// Checks an entry (its device against the machine's GPUs, say) before
// anything is built or sampled; throws a ConfigError naming the key.
using IndexerValidator = std::function<void(const IndexerSpec&, const MachineResources&)>;

// What a kind can take besides batches on the host.
enum class IndexerInput {
    host_terms,         // terms on the host only
    host_or_gpu_terms,  // also terms GPU parsers left on its device (invidx/resident_terms.hpp)
};

class IndexerRegistry {
public:
    void add(std::string kind, std::string description, IndexerFactory factory, IndexerValidator validate = {},
             IndexerInput input = IndexerInput::host_terms);
    // A ConfigError at `pointer` listing the known kinds when unknown.
    const IndexerFactory& get(const std::string& kind, const std::string& pointer) const;
    // Runs the kind's validator (spec.kind must be known).
    void validate(const IndexerSpec& spec, const MachineResources& machine) const;
    // Whether GPU parsers may leave this kind's terms on its device.
    bool takes_device_terms(const std::string& kind) const;
    std::vector<std::pair<std::string, std::string>> kinds() const;  // name, description

private:
    mutable std::mutex mutex_;
    struct Entry {
        std::string description;
        IndexerFactory factory;
        IndexerValidator validate;
        IndexerInput input = IndexerInput::host_terms;
    };
    std::map<std::string, Entry> kinds_;
};

// The process-wide registry with the standard kinds: cpu_btree, gpu_hash and
// gpu_btree (a GPU kind whose device is absent is a ConfigError naming the
// entry's "device").
IndexerRegistry& indexer_registry();

}  // namespace invidx
