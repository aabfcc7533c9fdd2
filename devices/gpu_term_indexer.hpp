// The device half of a GPU indexer (nodes/index/gpu_indexer.hpp is the host
// half): a dictionary that lives in GPU memory and the postings of the
// current run, grouped by term on the device.
//
// The host stages whole batches in pinned buffers with bulk copies only: a
// batch's term arena and the occurrences of the collections this indexer
// owns (whole slices; a regrouped batch keeps each collection's occurrences
// together). submit() copies them and launches the kernels on the indexer's
// CUDA stream and returns at once, so the host stages the next batches while
// the device works. On the device each occurrence is checked (a bad one is
// reported at the next synchronization, naming batch and docid), its key
// (the term without its collection's prefix) located, and its term id found.
// Term ids are dense, 0,1,2,... in order of each term's first occurrence in
// the stream, whatever the algorithm, so a build is deterministic.
// close_run() sorts the run's postings by term id on the device (stable:
// docid order is kept) and hands them back.
//
// C++17 and free of CUDA headers: g++ compiles the host half against it, and
// devices/no_cuda.cpp implements create_gpu_term_indexer() for builds
// without CUDA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "invidx/resident_terms.hpp"

namespace invidx {

// How the device finds a term's id (kinds "gpu_hash" and "gpu_btree").
enum class GpuDictionaryAlgorithm {
    hash,   // one thread per occurrence probes a device hash table (CAS insert)
    btree,  // Wei & JaJa §III.D.2: one 32-thread block per trie collection's B-tree
};

struct GpuTermIndexerOptions {
    int device = 0;                          // CUDA ordinal
    GpuDictionaryAlgorithm algorithm = GpuDictionaryAlgorithm::hash;
    size_t staging_occurrences = size_t{1} << 20;  // per pinned staging buffer (grows for bigger batches)
    size_t staging_term_bytes = size_t{16} << 20;
    std::vector<bool> owned;                 // kCollections entries: what the device may see
    bool positional = false;                 // return each posting's position start
};

// An occurrence as the parsers make it (include/invidx/messages.hpp TermOccurrence,
// same layout, checked by the host half).
struct GpuOccurrence {
    uint32_t local_docid;
    uint32_t collection;
    uint32_t term_offset;     // into its batch's term arena
    uint32_t term_length;     // full term, prefix included
    uint32_t tf;
    uint32_t positions_offset;
};

// One batch in a staging buffer.
struct GpuStagedBatch {
    uint64_t sequence = 0;          // for error messages
    uint64_t first_docid = 0;
    uint64_t terms_base = 0;        // its arena's place in GpuStaging::terms
    uint64_t positions_base = 0;    // where its positions start in the host's run positions
    uint32_t occurrence_begin = 0;  // its occurrences' place in GpuStaging::occurrences
    uint32_t documents = 0;
    uint32_t terms_bytes = 0;
    uint32_t padding = 0;
};

// A stretch of a staged chunk that is already in device memory (a GPU
// parser's terms, invidx/resident_terms.hpp): submit() copies it device to
// device into the chunk where the pinned buffer's bytes would have been
// (the pinned buffer's bytes there are not sent), and holds `owner` until
// the device has read it. Parts are staged in chunk order.
struct GpuResidentPart {
    const GpuOccurrence* occurrences = nullptr;  // device memory
    size_t occurrence_begin = 0;                 // its place among the chunk's occurrences
    size_t count = 0;
    const char* terms = nullptr;                 // device memory
    size_t terms_begin = 0;                      // its place in the chunk's term bytes
    size_t term_bytes = 0;
    std::shared_ptr<const void> owner;
};

// One pinned staging buffer, filled by the host between submit() calls.
struct GpuStaging {
    GpuOccurrence* occurrences = nullptr;
    char* terms = nullptr;
    GpuStagedBatch* batches = nullptr;
    size_t occurrence_capacity = 0;
    size_t term_capacity = 0;
    size_t batch_capacity = 0;
    size_t occurrence_count = 0;    // filled so far
    size_t terms_used = 0;
    size_t batch_count = 0;
    std::vector<GpuResidentPart> resident;  // stretches on the device, in order
};

// Appends `terms` (on this indexer's device) to `staging` as a resident
// part after what it holds; the caller has recorded the batch
// (GpuStagedBatch) with terms_base at staging.terms_used first. `owner`
// keeps the terms' buffer until the device has read them.
inline void stage_resident_terms(GpuStaging& staging, const ResidentTerms& terms, std::shared_ptr<const void> owner) {
    GpuResidentPart part;
    part.occurrences = static_cast<const GpuOccurrence*>(terms.occurrences);
    part.occurrence_begin = staging.occurrence_count;
    part.count = terms.count;
    part.terms = terms.arena;
    part.terms_begin = staging.terms_used;
    part.term_bytes = terms.arena_bytes;
    part.owner = std::move(owner);
    staging.resident.push_back(std::move(part));
    staging.occurrence_count += terms.count;
    staging.terms_used += terms.arena_bytes;
}

// A closed run: postings sorted by (term id, arrival order).
struct GpuRunPostings {
    const uint32_t* term_ids = nullptr;
    const uint32_t* docids = nullptr;
    const uint32_t* tfs = nullptr;
    const uint64_t* position_starts = nullptr;  // positional: GpuStagedBatch::positions_base + positions_offset
    size_t count = 0;
};

// The dictionary brought back: term id t has key bytes
// key_bytes[key_offsets[t] .. key_offsets[t] + key_lengths[t]).
struct GpuExportedTerms {
    std::vector<char> key_bytes;
    std::vector<uint64_t> key_offsets;
    std::vector<uint8_t> key_lengths;
    std::vector<uint16_t> collections;
};

struct GpuTermIndexerStats {
    std::string device_name;
    uint64_t terms = 0;
    uint64_t key_bytes = 0;           // distinct keys' bytes (the paper's characters)
    uint64_t device_bytes = 0;        // held now
    uint64_t peak_device_bytes = 0;   // most held at once
    uint64_t pinned_host_bytes = 0;
    double device_busy_seconds = 0;   // kernels and copies, by CUDA events
    double host_wait_seconds = 0;     // the host blocked on the device
    uint64_t chunks = 0;              // submit() calls that carried occurrences
};

class GpuTermIndexer {
public:
    virtual ~GpuTermIndexer() = default;
    // The buffer to fill now, with room for at least `occurrences`
    // occurrences, `term_bytes` arena bytes and one batch more than it holds:
    // submits what it holds first when that does not fit, grows when even an
    // empty one is too small. Waits if the device still copies from it.
    virtual GpuStaging& staging(size_t occurrences, size_t term_bytes) = 0;
    // Sends the staged occurrences: appended to the current run.
    virtual void submit() = 0;
    // Submits what is staged, then sorts and returns the run (valid until the
    // next call) and starts an empty one.
    virtual GpuRunPostings close_run() = 0;
    virtual uint64_t terms() = 0;  // waits for the device
    virtual GpuExportedTerms export_terms() = 0;
    virtual GpuTermIndexerStats stats() = 0;
};

// Throws invidx::Error naming the device when it cannot be used (no
// such ordinal, built without CUDA, out of memory).
std::unique_ptr<GpuTermIndexer> create_gpu_term_indexer(const GpuTermIndexerOptions& options);

}  // namespace invidx
