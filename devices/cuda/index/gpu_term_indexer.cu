// The device half of a GPU indexer (devices/gpu_term_indexer.hpp): pinned
// double-buffered staging, one CUDA stream per indexer, the dictionary's
// device arrays, and the run's postings sorted by term on the device.
//
// Everything an indexer does to the device is ordered by its one stream, so
// growing an array (stream-ordered malloc, copy, free) needs no host
// synchronization; the host waits only to reuse a staging buffer the device
// still copies from, and at the end of a run for the sorted postings.

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>

#include <cub/device/device_radix_sort.cuh>

#include "devices/cuda/index/gpu_btree_dictionary.cuh"
#include "devices/cuda/common/cuda_check.hpp"
#include "devices/cuda/common/cuda_event.hpp"
#include "invidx/collections.hpp"
#include "devices/cuda/common/device_array.hpp"
#include "devices/cuda/index/gpu_hash_dictionary.cuh"
#include "devices/gpu_term_indexer.hpp"

namespace invidx {
namespace {

using cuda::check;
using cuda::DeviceArray;
using cuda::MemoryCounter;
using cuda::PinnedArray;

constexpr int kThreads = 256;

// <bit> is C++20; CUDA sources build as C++17 (CMakeLists.txt).
int bit_width(uint64_t x) {
    int bits = 0;
    for (; x != 0; x >>= 1) ++bits;
    return bits;
}
uint64_t bit_ceil(uint64_t x) {
    uint64_t power = 1;
    while (power < x) power <<= 1;
    return power;
}

unsigned blocks_for(uint64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

__global__ void fill_sequence(uint32_t* values, uint32_t count) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) values[i] = i;
}

__global__ void gather_postings(const uint32_t* order, const uint32_t* docids, const uint32_t* tfs,
                                const uint64_t* position_starts, uint32_t count, uint32_t* sorted_docids,
                                uint32_t* sorted_tfs, uint64_t* sorted_position_starts) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    sorted_docids[i] = docids[order[i]];
    sorted_tfs[i] = tfs[order[i]];
    if (position_starts) sorted_position_starts[i] = position_starts[order[i]];
}

// Why an occurrence was refused; the smallest (index << 8 | code) is kept.
enum OccurrenceError : unsigned {
    kNotOwned = 1,
    kBadDocument = 2,
    kTermPastArena = 3,
    kTermTooLong = 4,
    kZeroTf = 5,
    kWrongPrefix = 6,
    kDocidTooLarge = 7,
};
constexpr unsigned long long kNoError = ~0ull;
constexpr uint32_t kCollectionCount = invidx::kCollections;
constexpr uint32_t kHashedCollectionCount = invidx::kHashedCollections;
static_assert(kCollectionCount == kHashedCollectionCount + 26 * 26 * 26,
              "expand_chunk reads a collection after the hashed ones as a three-letter prefix");
static_assert(kCollectionCount <= 0x10000, "a term's collection is kept in 16 bits");

// Checks every staged occurrence and lays out what the dictionary kernels
// read (key place, length, collection) and what the run keeps (docid, tf,
// position start). A refused occurrence becomes an empty key of collection
// 0, so the kernels after it stay in bounds; the host fails the build.
__global__ void expand_chunk(const GpuOccurrence* occurrences, uint32_t count, const GpuStagedBatch* batches,
                             uint32_t batch_count, const char* terms, const uint8_t* owned, uint32_t* key_offsets,
                             uint8_t* key_lengths, uint16_t* collections, uint32_t* docids, uint32_t* tfs,
                             uint64_t* position_starts, unsigned long long* error) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    uint32_t low = 0, high = batch_count - 1;  // the last batch starting at or before i
    while (low < high) {
        const uint32_t middle = (low + high + 1) / 2;
        if (batches[middle].occurrence_begin <= i) {
            low = middle;
        } else {
            high = middle - 1;
        }
    }
    const GpuStagedBatch batch = batches[low];
    const GpuOccurrence occurrence = occurrences[i];
    const uint32_t c = occurrence.collection;
    unsigned code = 0;
    if (c >= kCollectionCount || !owned[c]) {
        code = kNotOwned;
    } else if (occurrence.local_docid >= batch.documents) {
        code = kBadDocument;
    } else if (uint64_t{occurrence.term_offset} + occurrence.term_length > batch.terms_bytes) {
        code = kTermPastArena;
    } else if (occurrence.term_length > 255) {
        code = kTermTooLong;
    } else if (occurrence.tf == 0) {
        code = kZeroTf;
    } else if (batch.first_docid + occurrence.local_docid > 0xFFFFFFFFull) {
        code = kDocidTooLarge;
    } else if (c >= kHashedCollectionCount) {
        const uint32_t index = c - kHashedCollectionCount;
        const char* term = terms + batch.terms_base + occurrence.term_offset;
        if (occurrence.term_length < 4 || term[0] != static_cast<char>('a' + index / 676) ||
            term[1] != static_cast<char>('a' + index / 26 % 26) || term[2] != static_cast<char>('a' + index % 26)) {
            code = kWrongPrefix;
        }
    }
    if (code != 0) {
        atomicMin(error, (static_cast<unsigned long long>(i) << 8) | code);
        key_offsets[i] = 0;
        key_lengths[i] = 0;
        collections[i] = 0;
        docids[i] = 0;
        tfs[i] = 0;
        if (position_starts) position_starts[i] = 0;
        return;
    }
    const uint32_t prefix = c >= kHashedCollectionCount ? 3 : 0;
    key_offsets[i] = static_cast<uint32_t>(batch.terms_base + occurrence.term_offset + prefix);
    key_lengths[i] = static_cast<uint8_t>(occurrence.term_length - prefix);
    collections[i] = static_cast<uint16_t>(c);
    docids[i] = static_cast<uint32_t>(batch.first_docid + occurrence.local_docid);
    tfs[i] = occurrence.tf;
    if (position_starts) position_starts[i] = batch.positions_base + occurrence.positions_offset;
}

// The event pair brackets the device work of one chunk or one sort.
struct TimedEvents {
    cudaEvent_t start = nullptr;
    cudaEvent_t done = nullptr;
};

class CudaTermIndexer final : public GpuTermIndexer {
public:
    explicit CudaTermIndexer(const GpuTermIndexerOptions& options)
        : options_(options),
          term_offsets_(device_memory_),
          term_lengths_(device_memory_),
          term_collections_(device_memory_),
          arena_(device_memory_),
          counters_(device_memory_),
          table_(device_memory_),
          btree_(device_memory_),
          owned_(device_memory_),
          error_(device_memory_),
          chunk_occurrences_(device_memory_),
          chunk_batches_(device_memory_),
          chunk_terms_(device_memory_),
          chunk_key_offsets_(device_memory_),
          chunk_key_lengths_(device_memory_),
          chunk_collections_(device_memory_),
          chunk_slot_(device_memory_),
          chunk_claim_(device_memory_),
          chunk_claim_prefix_(device_memory_),
          scan_temp_(device_memory_),
          run_term_ids_(device_memory_),
          run_docids_(device_memory_),
          run_tfs_(device_memory_),
          run_position_starts_(device_memory_),
          sort_keys_alt_(device_memory_),
          sort_values_(device_memory_),
          sort_values_alt_(device_memory_),
          sorted_docids_(device_memory_),
          sorted_tfs_(device_memory_),
          sorted_position_starts_(device_memory_),
          sort_temp_(device_memory_),
          result_term_ids_(pinned_memory_),
          result_docids_(pinned_memory_),
          result_tfs_(pinned_memory_),
          result_position_starts_(pinned_memory_) {
        const std::string name = cuda::use_device(options.device);
        if (options.staging_occurrences == 0 || options.staging_occurrences >= cuda::kMaxHashTerms) {
            cuda::fail_on(options.device, "GPU indexer staging buffers must hold 1 to 2^31-2 occurrences");
        }
        if (!options.owned.empty() && options.owned.size() != kCollectionCount) {
            cuda::fail_on(options.device,
                          "GPU indexer ownership table must have " + std::to_string(kCollectionCount) + " entries");
        }
        device_name_ = "gpu:" + std::to_string(options.device) + " " + name;
        check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
        for (auto& slot : slots_) slot = std::make_unique<StagingSlot>(pinned_memory_, options);
        check_event(sort_events_);
        check(cudaEventCreateWithFlags(&idle_, cudaEventDisableTiming), "cudaEventCreate");

        counters_.reserve(2, 0, stream_);
        check(cudaMemsetAsync(counters_.data(), 0, 2 * sizeof(unsigned long long), stream_), "cudaMemsetAsync");
        error_.reserve(1, 0, stream_);
        check(cudaMemsetAsync(error_.data(), 0xFF, sizeof(unsigned long long), stream_), "cudaMemsetAsync");
        std::vector<uint8_t> owned(kCollectionCount, 1);
        for (size_t c = 0; c < options.owned.size(); ++c) owned[c] = options.owned[c] ? 1 : 0;
        owned_.reserve(kCollectionCount, 0, stream_);
        check(cudaMemcpy(owned_.data(), owned.data(), kCollectionCount, cudaMemcpyHostToDevice), "cudaMemcpy (owned)");
        if (options.algorithm == GpuDictionaryAlgorithm::hash) {
            grow_table(size_t{1} << 16);
        } else {
            cuda::btree_init(btree_, stream_);
        }
        check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (setup)");
    }

    ~CudaTermIndexer() override {
        cudaSetDevice(options_.device);
        if (stream_) cudaStreamSynchronize(stream_);
        cudaEventDestroy(sort_events_.start);
        cudaEventDestroy(sort_events_.done);
        if (idle_) cudaEventDestroy(idle_);
        slots_ = {};
        if (stream_) cudaStreamDestroy(stream_);
    }

    GpuStaging& staging(size_t occurrences, size_t term_bytes) override {
        use_device();
        StagingSlot* slot = slots_[current_].get();
        if (slot->in_flight) wait_for(*slot);
        if (fits(*slot, occurrences, term_bytes)) return slot->view;
        if (slot->view.batch_count > 0) {
            submit();
            slot = slots_[current_].get();
            if (slot->in_flight) wait_for(*slot);
            if (fits(*slot, occurrences, term_bytes)) return slot->view;
        }
        slot->grow(occurrences, term_bytes);  // empty and not in flight: nothing to keep
        return slot->view;
    }

    void submit() override {
        use_device();
        StagingSlot& slot = *slots_[current_];
        // A slot still in flight holds nothing new: the host fills a slot
        // only after staging() has waited for it.
        if (slot.in_flight) return;
        const size_t n = slot.view.occurrence_count;
        const size_t batches = slot.view.batch_count;
        const size_t term_bytes = slot.view.terms_used;
        slot.view.occurrence_count = 0;
        slot.view.batch_count = 0;
        slot.view.terms_used = 0;
        slot.submitted_resident.clear();
        slot.submitted_resident.swap(slot.view.resident);
        if (n == 0) {  // batches without an owned occurrence
            slot.submitted_resident.clear();
            return;
        }

        // Upper bounds: every occurrence not yet counted may be a new term.
        uint64_t upper_terms = known_terms_ + n;
        uint64_t upper_bytes = known_bytes_ + term_bytes;
        for (const auto& other : slots_) {
            if (other->in_flight) {
                upper_terms += other->submitted_occurrences;
                upper_bytes += other->submitted_term_bytes;
            }
        }
        if (upper_terms >= cuda::kMaxHashTerms) {
            cuda::fail_on(options_.device, "a GPU indexer holds at most 2^31-1 terms");
        }
        const auto chunk_size = static_cast<uint32_t>(n);
        reserve_dictionary(upper_terms, upper_bytes, chunk_size);
        run_term_ids_.reserve(run_count_ + n, run_count_, stream_);
        run_docids_.reserve(run_count_ + n, run_count_, stream_);
        run_tfs_.reserve(run_count_ + n, run_count_, stream_);
        if (options_.positional) run_position_starts_.reserve(run_count_ + n, run_count_, stream_);
        chunk_occurrences_.reserve(n, 0, stream_);
        chunk_batches_.reserve(batches, 0, stream_);
        chunk_terms_.reserve(std::max<size_t>(term_bytes, 1), 0, stream_);
        chunk_key_offsets_.reserve(n, 0, stream_);
        chunk_key_lengths_.reserve(n, 0, stream_);
        chunk_collections_.reserve(n, 0, stream_);
        chunk_slot_.reserve(n, 0, stream_);
        chunk_claim_.reserve(n, 0, stream_);
        chunk_claim_prefix_.reserve(n, 0, stream_);
        scan_temp_.reserve(std::max(cuda::hash_scan_temp_bytes(chunk_size), cuda::btree_temp_bytes(chunk_size)), 0,
                           stream_);

        check(cudaEventRecord(slot.events.start, stream_), "cudaEventRecord");
        copy_chunk(slot, n, term_bytes);
        copy_to_device(chunk_batches_.data(), slot.view.batches, batches);
        expand_chunk<<<blocks_for(n), kThreads, 0, stream_>>>(
            chunk_occurrences_.data(), chunk_size, chunk_batches_.data(), static_cast<uint32_t>(batches),
            chunk_terms_.data(), owned_.data(), chunk_key_offsets_.data(), chunk_key_lengths_.data(),
            chunk_collections_.data(), run_docids_.data() + run_count_, run_tfs_.data() + run_count_,
            options_.positional ? run_position_starts_.data() + run_count_ : nullptr, error_.data());
        cuda::check_launch("expand_chunk");

        cuda::ChunkView chunk;
        chunk.key_bytes = chunk_terms_.data();
        chunk.key_offsets = chunk_key_offsets_.data();
        chunk.key_lengths = chunk_key_lengths_.data();
        chunk.collections = chunk_collections_.data();
        chunk.count = chunk_size;
        uint32_t* term_ids = run_term_ids_.data() + run_count_;
        if (options_.algorithm == GpuDictionaryAlgorithm::hash) {
            cuda::HashScratch scratch{chunk_slot_.data(), chunk_claim_.data(), chunk_claim_prefix_.data(),
                                      scan_temp_.data(), scan_temp_.capacity()};
            cuda::hash_assign_term_ids(dictionary_view(), table_view(), chunk, scratch, term_ids, stream_);
        } else {
            cuda::BtreeScratch scratch{chunk_slot_.data(), chunk_claim_.data(), chunk_claim_prefix_.data(),
                                       scan_temp_.data(), scan_temp_.capacity()};
            cuda::btree_assign_term_ids(dictionary_view(), btree_, chunk, scratch, term_ids, stream_);
        }
        check(cudaMemcpyAsync(slot.counters_after.data(), counters_.data(), 2 * sizeof(unsigned long long),
                              cudaMemcpyDeviceToHost, stream_),
              "cudaMemcpyAsync (counters)");
        check(cudaMemcpyAsync(slot.counters_after.data() + 2, error_.data(), sizeof(unsigned long long),
                              cudaMemcpyDeviceToHost, stream_),
              "cudaMemcpyAsync (error)");
        check(cudaEventRecord(slot.events.done, stream_), "cudaEventRecord");

        slot.in_flight = true;
        slot.sequence = ++submitted_;
        slot.submitted_occurrences = n;
        slot.submitted_term_bytes = term_bytes;
        slot.submitted_batches = batches;
        run_count_ += n;
        ++chunks_;
        current_ ^= 1;
    }

    GpuRunPostings close_run() override {
        submit();
        use_device();
        GpuRunPostings out;
        const size_t n = run_count_;
        if (n > 0) {
            uint64_t upper_terms = known_terms_;
            for (const auto& slot : slots_) {
                if (slot->in_flight) upper_terms += slot->submitted_occurrences;
            }
            // Radix passes only over the bits a term id can have.
            const int end_bit = std::max(1, static_cast<int>(bit_width(upper_terms)));
            sort_keys_alt_.reserve(n, 0, stream_);
            sort_values_.reserve(n, 0, stream_);
            sort_values_alt_.reserve(n, 0, stream_);
            sorted_docids_.reserve(n, 0, stream_);
            sorted_tfs_.reserve(n, 0, stream_);
            check(cudaEventRecord(sort_events_.start, stream_), "cudaEventRecord");
            fill_sequence<<<blocks_for(n), kThreads, 0, stream_>>>(sort_values_.data(), static_cast<uint32_t>(n));
            cuda::check_launch("fill_sequence");
            cub::DoubleBuffer<uint32_t> keys(run_term_ids_.data(), sort_keys_alt_.data());
            cub::DoubleBuffer<uint32_t> values(sort_values_.data(), sort_values_alt_.data());
            size_t temp_bytes = 0;
            check(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys, values, static_cast<int>(n), 0, end_bit,
                                                  stream_),
                  "cub::DeviceRadixSort::SortPairs (size)");
            sort_temp_.reserve(temp_bytes, 0, stream_);
            temp_bytes = sort_temp_.capacity();
            check(cub::DeviceRadixSort::SortPairs(sort_temp_.data(), temp_bytes, keys, values, static_cast<int>(n), 0,
                                                  end_bit, stream_),
                  "cub::DeviceRadixSort::SortPairs");
            if (options_.positional) sorted_position_starts_.reserve(n, 0, stream_);
            gather_postings<<<blocks_for(n), kThreads, 0, stream_>>>(
                values.Current(), run_docids_.data(), run_tfs_.data(),
                options_.positional ? run_position_starts_.data() : nullptr, static_cast<uint32_t>(n),
                sorted_docids_.data(), sorted_tfs_.data(), sorted_position_starts_.data());
            cuda::check_launch("gather_postings");
            result_term_ids_.reserve(n);
            result_docids_.reserve(n);
            result_tfs_.reserve(n);
            copy_to_host(result_term_ids_.data(), keys.Current(), n);
            copy_to_host(result_docids_.data(), sorted_docids_.data(), n);
            copy_to_host(result_tfs_.data(), sorted_tfs_.data(), n);
            if (options_.positional) {
                result_position_starts_.reserve(n);
                copy_to_host(result_position_starts_.data(), sorted_position_starts_.data(), n);
                out.position_starts = result_position_starts_.data();
            }
            check(cudaEventRecord(sort_events_.done, stream_), "cudaEventRecord");
            out.term_ids = result_term_ids_.data();
            out.docids = result_docids_.data();
            out.tfs = result_tfs_.data();
            out.count = n;
        }
        synchronize();
        if (n > 0) busy_seconds_ += elapsed_seconds(sort_events_);
        run_count_ = 0;
        return out;
    }

    uint64_t terms() override {
        use_device();
        synchronize();
        return known_terms_;
    }

    GpuExportedTerms export_terms() override {
        use_device();
        synchronize();
        GpuExportedTerms out;
        const size_t terms = known_terms_;
        out.key_bytes.resize(known_bytes_);
        out.key_offsets.resize(terms);
        out.key_lengths.resize(terms);
        out.collections.resize(terms);
        if (terms == 0) return out;
        check(cudaMemcpy(out.key_bytes.data(), arena_.data(), known_bytes_, cudaMemcpyDeviceToHost), "export keys");
        check(cudaMemcpy(out.key_offsets.data(), term_offsets_.data(), terms * sizeof(uint64_t), cudaMemcpyDeviceToHost),
              "export offsets");
        check(cudaMemcpy(out.key_lengths.data(), term_lengths_.data(), terms, cudaMemcpyDeviceToHost), "export lengths");
        check(cudaMemcpy(out.collections.data(), term_collections_.data(), terms * sizeof(uint16_t),
                         cudaMemcpyDeviceToHost),
              "export collections");
        if (options_.algorithm == GpuDictionaryAlgorithm::btree) {
            // The B-trees' term arrays are in provisional order: put them in
            // term id order.
            std::vector<uint32_t> final_id(terms);
            check(cudaMemcpy(final_id.data(), btree_.final_id.data(), terms * sizeof(uint32_t), cudaMemcpyDeviceToHost),
                  "export term ids");
            GpuExportedTerms ordered;
            ordered.key_bytes = std::move(out.key_bytes);
            ordered.key_offsets.resize(terms);
            ordered.key_lengths.resize(terms);
            ordered.collections.resize(terms);
            for (size_t p = 0; p < terms; ++p) {
                const uint32_t id = final_id[p];
                if (id >= terms) cuda::fail_on(options_.device, "B-tree term numbering is inconsistent");
                ordered.key_offsets[id] = out.key_offsets[p];
                ordered.key_lengths[id] = out.key_lengths[p];
                ordered.collections[id] = out.collections[p];
            }
            return ordered;
        }
        return out;
    }

    GpuTermIndexerStats stats() override {
        GpuTermIndexerStats out;
        out.device_name = device_name_;
        out.terms = known_terms_;
        out.key_bytes = known_bytes_;
        out.device_bytes = device_memory_.bytes;
        out.peak_device_bytes = device_memory_.peak;
        out.pinned_host_bytes = pinned_memory_.bytes;
        out.device_busy_seconds = busy_seconds_;
        out.host_wait_seconds = host_wait_seconds_;
        out.chunks = chunks_;
        return out;
    }

private:
    struct StagingSlot {
        StagingSlot(MemoryCounter& pinned, const GpuTermIndexerOptions& options)
            : occurrences(pinned), terms(pinned), batches(pinned), counters_after(pinned) {
            counters_after.reserve(3);
            grow(options.staging_occurrences, options.staging_term_bytes);
            check_event(events);
        }
        ~StagingSlot() {
            cudaEventDestroy(events.start);
            cudaEventDestroy(events.done);
        }
        // Only while empty and not in flight.
        void grow(size_t occurrence_count, size_t term_bytes) {
            occurrences.reserve(std::max<size_t>(occurrence_count, 1));
            terms.reserve(std::max<size_t>(term_bytes, 1));
            batches.reserve(std::max<size_t>(occurrences.capacity() / 64, 64));
            view.occurrences = occurrences.data();
            view.terms = terms.data();
            view.batches = batches.data();
            view.occurrence_capacity = occurrences.capacity();
            view.term_capacity = terms.capacity();
            view.batch_capacity = batches.capacity();
        }
        PinnedArray<GpuOccurrence> occurrences;
        PinnedArray<char> terms;
        PinnedArray<GpuStagedBatch> batches;
        // The dictionary's counters once this chunk is in, and the error record.
        PinnedArray<unsigned long long> counters_after;
        TimedEvents events;
        GpuStaging view;
        bool in_flight = false;
        uint64_t sequence = 0;
        size_t submitted_occurrences = 0;
        size_t submitted_term_bytes = 0;
        size_t submitted_batches = 0;
        std::vector<GpuResidentPart> submitted_resident;  // held until the device has copied them
    };

    static bool fits(const StagingSlot& slot, size_t occurrences, size_t term_bytes) {
        const GpuStaging& view = slot.view;
        return view.occurrence_count + occurrences <= view.occurrence_capacity &&
               view.terms_used + term_bytes <= view.term_capacity && view.batch_count < view.batch_capacity;
    }

    // The chunk's occurrences and term bytes from the pinned buffer, and
    // its resident parts from device memory, each where the chunk has it.
    void copy_chunk(const StagingSlot& slot, size_t n, size_t term_bytes) {
        size_t occurrences_at = 0;
        size_t terms_at = 0;
        for (const GpuResidentPart& part : slot.submitted_resident) {
            if (part.occurrence_begin < occurrences_at || part.terms_begin < terms_at ||
                part.occurrence_begin + part.count > n || part.terms_begin + part.term_bytes > term_bytes) {
                cuda::fail_on(options_.device, "resident parts of a staged chunk overlap or run past it");
            }
            copy_to_device(chunk_occurrences_.data() + occurrences_at, slot.view.occurrences + occurrences_at,
                           part.occurrence_begin - occurrences_at);
            copy_to_device(chunk_terms_.data() + terms_at, slot.view.terms + terms_at, part.terms_begin - terms_at);
            copy_on_device(chunk_occurrences_.data() + part.occurrence_begin, part.occurrences, part.count);
            copy_on_device(chunk_terms_.data() + part.terms_begin, part.terms, part.term_bytes);
            occurrences_at = part.occurrence_begin + part.count;
            terms_at = part.terms_begin + part.term_bytes;
        }
        copy_to_device(chunk_occurrences_.data() + occurrences_at, slot.view.occurrences + occurrences_at,
                       n - occurrences_at);
        copy_to_device(chunk_terms_.data() + terms_at, slot.view.terms + terms_at, term_bytes - terms_at);
    }

    // Occurrence i of a submitted chunk and its term bytes: from the pinned
    // buffer, or from the device for a resident part's (still held).
    std::pair<GpuOccurrence, std::string> staged_occurrence(const StagingSlot& slot, uint32_t i,
                                                            const GpuStagedBatch& batch) const {
        for (const GpuResidentPart& part : slot.submitted_resident) {
            if (i < part.occurrence_begin || i >= part.occurrence_begin + part.count) continue;
            GpuOccurrence occurrence{};
            check(cudaMemcpy(&occurrence, part.occurrences + (i - part.occurrence_begin), sizeof occurrence,
                             cudaMemcpyDeviceToHost),
                  "cudaMemcpy (refused occurrence)");
            std::string term;
            if (uint64_t{occurrence.term_offset} + occurrence.term_length <= part.term_bytes) {
                term.resize(occurrence.term_length);
                check(cudaMemcpy(term.data(), part.terms + occurrence.term_offset, term.size(), cudaMemcpyDeviceToHost),
                      "cudaMemcpy (refused term)");
            }
            return {occurrence, term};
        }
        const GpuOccurrence occurrence = slot.view.occurrences[i];
        std::string term;
        if (uint64_t{occurrence.term_offset} + occurrence.term_length <= batch.terms_bytes)
            term.assign(slot.view.terms + batch.terms_base + occurrence.term_offset, occurrence.term_length);
        return {occurrence, term};
    }

    // The first refused occurrence of a finished chunk, named as the host
    // half names a bad batch (batch, docid, what is wrong) after the device.
    [[noreturn]] void fail_occurrence(const StagingSlot& slot, unsigned long long error) const {
        const auto i = static_cast<uint32_t>(error >> 8);
        const unsigned code = static_cast<unsigned>(error & 0xFF);
        const GpuStagedBatch* batches = slot.view.batches;
        size_t b = 0;
        while (b + 1 < slot.submitted_batches && batches[b + 1].occurrence_begin <= i) ++b;
        const GpuStagedBatch& batch = batches[b];
        const auto [occurrence, term] = staged_occurrence(slot, i, batch);
        std::string what;
        switch (code) {
            case kNotOwned: what = "occurrence of collection " + std::to_string(occurrence.collection) +
                                   ", which this GPU indexer does not own or does not exist"; break;
            case kBadDocument: what = "occurrence names local docid " + std::to_string(occurrence.local_docid) +
                                      " of " + std::to_string(batch.documents) + " documents"; break;
            case kTermPastArena: what = "term bytes run past the batch's term arena"; break;
            case kTermTooLong: what = "term longer than 255 bytes"; break;
            case kZeroTf: what = "occurrence with tf 0"; break;
            case kDocidTooLarge: what = "docids above 2^32-1 are not supported"; break;
            case kWrongPrefix: what = "term '" + term + "' does not belong to collection " +
                                      std::to_string(occurrence.collection);
                break;
            default: what = "refused occurrence (code " + std::to_string(code) + ")";
        }
        cuda::fail_on(options_.device, "batch " + std::to_string(batch.sequence) + ": docid " +
                                           std::to_string(batch.first_docid + occurrence.local_docid) + ": " + what);
    }

    static void check_event(TimedEvents& events) {
        check(cudaEventCreate(&events.start), "cudaEventCreate");
        check(cudaEventCreate(&events.done), "cudaEventCreate");
    }

    static double elapsed_seconds(const TimedEvents& events) {
        float ms = 0;
        check(cudaEventElapsedTime(&ms, events.start, events.done), "cudaEventElapsedTime");
        return ms * 1e-3;
    }

    void use_device() const { check(cudaSetDevice(options_.device), "cudaSetDevice"); }

    template <class T>
    void copy_to_device(T* to, const T* from, size_t count) {
        if (count == 0) return;
        check(cudaMemcpyAsync(to, from, count * sizeof(T), cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync (H2D)");
    }
    template <class T>
    void copy_on_device(T* to, const T* from, size_t count) {
        if (count == 0) return;
        check(cudaMemcpyAsync(to, from, count * sizeof(T), cudaMemcpyDeviceToDevice, stream_), "cudaMemcpyAsync (D2D)");
    }
    template <class T>
    void copy_to_host(T* to, const T* from, size_t count) {
        check(cudaMemcpyAsync(to, from, count * sizeof(T), cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync (D2H)");
    }

    // The chunk in `slot` and all before it are done: take their counters.
    void wait_for(StagingSlot& slot) {
        const auto start = std::chrono::steady_clock::now();
        cuda::wait_yielding(slot.events.done, "device work of a staged chunk");
        host_wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        for (auto& other : slots_) {
            if (other->in_flight && other->sequence < slot.sequence) complete(*other);
        }
        complete(slot);
    }

    void complete(StagingSlot& slot) {
        known_terms_ = slot.counters_after.data()[0];
        known_bytes_ = slot.counters_after.data()[1];
        busy_seconds_ += elapsed_seconds(slot.events);
        slot.in_flight = false;
        const unsigned long long error = slot.counters_after.data()[2];
        if (error != kNoError && !failed_) {
            failed_ = true;
            fail_occurrence(slot, error);
        }
        slot.submitted_resident.clear();  // the device has read them: their buffers go back
    }

    void synchronize() {
        const auto start = std::chrono::steady_clock::now();
        check(cudaEventRecord(idle_, stream_), "cudaEventRecord");
        cuda::wait_yielding(idle_, "GPU indexer device work");
        host_wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        StagingSlot* first = slots_[0].get();
        StagingSlot* second = slots_[1].get();
        if (first->sequence > second->sequence) std::swap(first, second);
        if (first->in_flight) complete(*first);
        if (second->in_flight) complete(*second);
    }

    void reserve_dictionary(uint64_t terms, uint64_t key_bytes, uint32_t chunk_size) {
        // Capacities may exceed what is used; copying all of it keeps growth
        // free of host synchronization (the device knows what is used).
        term_offsets_.reserve(terms, term_offsets_.capacity(), stream_);
        term_lengths_.reserve(terms, term_lengths_.capacity(), stream_);
        term_collections_.reserve(terms, term_collections_.capacity(), stream_);
        arena_.reserve(std::max<uint64_t>(key_bytes, 1), arena_.capacity(), stream_);
        if (options_.algorithm == GpuDictionaryAlgorithm::hash) {
            if (table_capacity_ < 2 * terms) grow_table(bit_ceil(2 * terms));
        } else {
            cuda::btree_reserve(btree_, terms, chunk_size, stream_);
        }
    }

    // A bigger table, filled again from the term arrays (stream-ordered: the
    // kernel reads the term count from the device).
    void grow_table(uint64_t capacity) {
        DeviceArray<uint32_t> fresh(device_memory_);
        fresh.reserve(capacity, 0, stream_);
        check(cudaMemsetAsync(fresh.data(), 0xFF, capacity * sizeof(uint32_t), stream_), "cudaMemsetAsync (table)");
        cuda::HashTableView view{fresh.data(), capacity - 1};
        // The old table held at most half its capacity in terms.
        cuda::hash_insert_all(dictionary_view(), view, table_capacity_ / 2, stream_);
        table_.swap(fresh);
        fresh.release_async(stream_);
        table_capacity_ = capacity;
    }

    cuda::DictionaryView dictionary_view() {
        return cuda::DictionaryView{term_offsets_.data(), term_lengths_.data(), term_collections_.data(), arena_.data(),
                                    counters_.data()};
    }
    cuda::HashTableView table_view() { return cuda::HashTableView{table_.data(), table_capacity_ - 1}; }

    GpuTermIndexerOptions options_;
    std::string device_name_;
    cudaStream_t stream_ = nullptr;
    cudaEvent_t idle_ = nullptr;  // recorded and polled by synchronize()
    MemoryCounter device_memory_;
    MemoryCounter pinned_memory_;

    std::array<std::unique_ptr<StagingSlot>, 2> slots_;
    int current_ = 0;
    uint64_t submitted_ = 0;
    uint64_t chunks_ = 0;
    uint64_t known_terms_ = 0;  // exact once the chunks before are done
    uint64_t known_bytes_ = 0;
    double busy_seconds_ = 0;
    double host_wait_seconds_ = 0;
    bool failed_ = false;  // an error was reported; the build is over
    TimedEvents sort_events_;

    // The dictionary.
    DeviceArray<uint64_t> term_offsets_;
    DeviceArray<uint8_t> term_lengths_;
    DeviceArray<uint16_t> term_collections_;
    DeviceArray<char> arena_;
    DeviceArray<unsigned long long> counters_;
    DeviceArray<uint32_t> table_;
    uint64_t table_capacity_ = 0;
    cuda::BtreeArrays btree_;

    // One chunk on the device.
    DeviceArray<uint8_t> owned_;                   // per collection: 1 if this indexer's
    DeviceArray<unsigned long long> error_;        // smallest (occurrence << 8 | code), or kNoError
    DeviceArray<GpuOccurrence> chunk_occurrences_;
    DeviceArray<GpuStagedBatch> chunk_batches_;
    DeviceArray<char> chunk_terms_;
    DeviceArray<uint32_t> chunk_key_offsets_;
    DeviceArray<uint8_t> chunk_key_lengths_;
    DeviceArray<uint16_t> chunk_collections_;
    DeviceArray<uint32_t> chunk_slot_;
    DeviceArray<unsigned long long> chunk_claim_;
    DeviceArray<unsigned long long> chunk_claim_prefix_;
    DeviceArray<unsigned char> scan_temp_;

    // The current run: a term id, docid and tf per occurrence, in arrival order.
    DeviceArray<uint32_t> run_term_ids_;
    DeviceArray<uint32_t> run_docids_;
    DeviceArray<uint32_t> run_tfs_;
    DeviceArray<uint64_t> run_position_starts_;
    size_t run_count_ = 0;
    DeviceArray<uint32_t> sort_keys_alt_;
    DeviceArray<uint32_t> sort_values_;
    DeviceArray<uint32_t> sort_values_alt_;
    DeviceArray<uint32_t> sorted_docids_;
    DeviceArray<uint32_t> sorted_tfs_;
    DeviceArray<uint64_t> sorted_position_starts_;
    DeviceArray<unsigned char> sort_temp_;
    PinnedArray<uint32_t> result_term_ids_;
    PinnedArray<uint32_t> result_docids_;
    PinnedArray<uint32_t> result_tfs_;
    PinnedArray<uint64_t> result_position_starts_;
};

}  // namespace

std::unique_ptr<GpuTermIndexer> create_gpu_term_indexer(const GpuTermIndexerOptions& options) {
    return std::make_unique<CudaTermIndexer>(options);
}

}  // namespace invidx
