// The GPU indexer (Wei & JaJa §III.D.2, kinds "gpu_hash" and "gpu_btree"):
// the host half. It stages each batch's term arena and the occurrences of
// the collections it owns into pinned buffers for the device (bulk copies;
// the device checks every occurrence), and at the end of
// a run turns the device's term-sorted postings into the run's lists while
// keeping df, cf and the partial-list pointers of every term (the
// dictionary's keys stay on the device until export).
//
// It waits on the device, so the index node runs it on a thread of its own
// (kOffloaded; graph/async_worker.hpp) and flow-graph threads never block.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "devices/gpu_term_indexer.hpp"
#include "nodes/index/partial_list_refs.hpp"
#include "invidx/messages.hpp"
#include "invidx/resident_terms.hpp"

namespace invidx {

class GpuIndexer {
public:
    static constexpr bool kOffloaded = true;

    // Collection c is indexed here iff owned[c] (kCollections entries).
    GpuIndexer(uint32_t indexer_id, std::vector<bool> owned, bool positional, GpuTermIndexerOptions options);

    // Batches must come in increasing docid order.
    void index(const RegroupedBatch& batch);
    // The run's lists in term id order (slot i = i-th term touched, by id).
    RunPostings end_run(uint32_t run, uint32_t indexer_count, bool end_of_input);
    // Every term with df, cf, full bytes and its PartialListRefs in run
    // order, in term id order (the index writer sorts the dictionary).
    std::vector<DictionaryTerm> export_terms() const;

    struct Stats {
        uint64_t tokens = 0;
        uint64_t terms = 0;
        uint64_t characters = 0;
        uint64_t postings = 0;
    };
    Stats stats() const;
    uint32_t indexer_id() const { return indexer_id_; }
    int resident_device() const { return device_ordinal_; }
    size_t memory_bytes() const;      // host memory: per-term records and run buffers
    nlohmann::json extra_stats() const;  // device, device memory, device busy time

private:
    static constexpr uint32_t kNone = UINT32_MAX;
    // Submit a chunk once it holds this many batches' terms from a GPU
    // parser's buffers, so they go back to the parser soon.
    static constexpr size_t kResidentPartsPerChunk = 4;

    struct TermRecord {
        uint64_t cf = 0;
        uint32_t df = 0;
        PartialListRefs::Chain refs;  // its partial lists, in run order
    };
    bool owns(uint32_t collection) const { return collection < owned_.size() && owned_[collection]; }

    uint32_t indexer_id_;
    int device_ordinal_ = -1;
    uint64_t resident_batches_ = 0;
    uint64_t resident_occurrences_ = 0;
    std::vector<bool> owned_;
    bool positional_;
    std::string algorithm_;
    // The device half, made on first use (device()): on the indexer's own
    // thread once the graph runs, so the build's start does not wait for
    // the GPU's context and buffers (0.1-0.2 s).
    GpuTermIndexer& device() const;
    GpuTermIndexerOptions options_;
    mutable std::unique_ptr<GpuTermIndexer> device_;

    std::vector<TermRecord> terms_;  // by term id
    PartialListRefs refs_;

    // The current run's positions (positional builds): every staged batch's
    // positions back to back; the device returns where each posting's start.
    std::vector<uint32_t> run_positions_;

    double stage_seconds_ = 0;      // checking and staging batches (waits included)
    double close_run_seconds_ = 0;  // submit, sort and copy back at run ends
    double lists_seconds_ = 0;      // turning sorted postings into run lists
    uint64_t next_docid_ = 0;  // batches must start at or after it
    uint32_t last_run_ = 0;
    bool any_run_ended_ = false;
    Stats stats_;
};

}  // namespace invidx
