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
#include <stdexcept>
#include <string>

#include <cub/device/device_radix_sort.cuh>

#include "devices/cuda/btree_dictionary.cuh"
#include "devices/cuda/cuda_check.hpp"
#include "devices/cuda/device_array.hpp"
#include "devices/cuda/hash_dictionary.cuh"
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

__global__ void gather_postings(const uint32_t* order, const uint32_t* docids, const uint32_t* tfs, uint32_t count,
                                uint32_t* sorted_docids, uint32_t* sorted_tfs) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    sorted_docids[i] = docids[order[i]];
    sorted_tfs[i] = tfs[order[i]];
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
          chunk_keys_(device_memory_),
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
          sort_keys_alt_(device_memory_),
          sort_values_(device_memory_),
          sort_values_alt_(device_memory_),
          sorted_docids_(device_memory_),
          sorted_tfs_(device_memory_),
          sort_temp_(device_memory_),
          result_term_ids_(pinned_memory_),
          result_docids_(pinned_memory_),
          result_tfs_(pinned_memory_),
          result_order_(pinned_memory_) {
        int count = 0;
        check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
        if (options.device < 0 || options.device >= count) {
            throw std::runtime_error("gpu:" + std::to_string(options.device) + " does not exist: this machine has " +
                                     std::to_string(count) + " CUDA device(s)");
        }
        if (options.staging_occurrences == 0 || options.staging_occurrences >= cuda::kMaxHashTerms ||
            options.staging_key_bytes < 255) {
            throw std::runtime_error("GPU indexer staging buffers must hold 1 to 2^31-2 occurrences and 255 key bytes");
        }
        use_device();
        cudaDeviceProp properties{};
        check(cudaGetDeviceProperties(&properties, options.device), "cudaGetDeviceProperties");
        device_name_ = "gpu:" + std::to_string(options.device) + " " + properties.name;
        check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
        for (auto& slot : slots_) slot = std::make_unique<StagingSlot>(pinned_memory_, options);
        check_event(sort_events_);

        counters_.reserve(2, 0, stream_);
        check(cudaMemsetAsync(counters_.data(), 0, 2 * sizeof(unsigned long long), stream_), "cudaMemsetAsync");
        if (options.algorithm == GpuDictionaryAlgorithm::hash) {
            grow_table(size_t{1} << 16);
        } else {
            cuda::btree_init(btree_, stream_);
        }
        const auto chunk = static_cast<uint32_t>(options.staging_occurrences);
        scan_temp_.reserve(std::max(cuda::hash_scan_temp_bytes(chunk), cuda::btree_temp_bytes(chunk)), 0, stream_);
        check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (setup)");
    }

    ~CudaTermIndexer() override {
        cudaSetDevice(options_.device);
        if (stream_) cudaStreamSynchronize(stream_);
        cudaEventDestroy(sort_events_.start);
        cudaEventDestroy(sort_events_.done);
        slots_ = {};
        if (stream_) cudaStreamDestroy(stream_);
    }

    GpuStaging& staging() override {
        use_device();
        StagingSlot& slot = *slots_[current_];
        if (slot.in_flight) wait_for(slot);
        return slot.view;
    }

    void submit() override {
        use_device();
        StagingSlot& slot = *slots_[current_];
        // A slot still in flight holds nothing new: the host fills a slot
        // only after staging() has waited for it.
        if (slot.in_flight) return;
        const size_t n = slot.view.occurrences;
        if (n == 0) return;
        const size_t key_bytes = slot.view.key_bytes_used;

        // Upper bounds: every occurrence not yet counted may be a new term.
        uint64_t upper_terms = known_terms_ + n;
        uint64_t upper_bytes = known_bytes_ + key_bytes;
        for (const auto& other : slots_) {
            if (other->in_flight) {
                upper_terms += other->submitted_occurrences;
                upper_bytes += other->submitted_key_bytes;
            }
        }
        if (upper_terms >= cuda::kMaxHashTerms) {
            throw std::runtime_error(device_name_ + ": a GPU indexer holds at most 2^31-1 terms");
        }
        reserve_dictionary(upper_terms, upper_bytes);
        run_term_ids_.reserve(run_count_ + n, run_count_, stream_);
        run_docids_.reserve(run_count_ + n, run_count_, stream_);
        run_tfs_.reserve(run_count_ + n, run_count_, stream_);
        chunk_keys_.reserve(key_bytes, 0, stream_);
        chunk_key_offsets_.reserve(n, 0, stream_);
        chunk_key_lengths_.reserve(n, 0, stream_);
        chunk_collections_.reserve(n, 0, stream_);
        chunk_slot_.reserve(n, 0, stream_);
        chunk_claim_.reserve(n, 0, stream_);
        chunk_claim_prefix_.reserve(n, 0, stream_);

        check(cudaEventRecord(slot.events.start, stream_), "cudaEventRecord");
        copy_to_device(chunk_keys_.data(), slot.view.key_bytes, key_bytes);
        copy_to_device(chunk_key_offsets_.data(), slot.view.key_offsets, n);
        copy_to_device(chunk_key_lengths_.data(), slot.view.key_lengths, n);
        copy_to_device(chunk_collections_.data(), slot.view.collections, n);
        copy_to_device(run_docids_.data() + run_count_, slot.view.docids, n);
        copy_to_device(run_tfs_.data() + run_count_, slot.view.tfs, n);

        cuda::ChunkView chunk;
        chunk.key_bytes = chunk_keys_.data();
        chunk.key_offsets = chunk_key_offsets_.data();
        chunk.key_lengths = chunk_key_lengths_.data();
        chunk.collections = chunk_collections_.data();
        chunk.count = static_cast<uint32_t>(n);
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
        check(cudaEventRecord(slot.events.done, stream_), "cudaEventRecord");

        slot.in_flight = true;
        slot.sequence = ++submitted_;
        slot.submitted_occurrences = n;
        slot.submitted_key_bytes = key_bytes;
        slot.view.occurrences = 0;
        slot.view.key_bytes_used = 0;
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
            gather_postings<<<blocks_for(n), kThreads, 0, stream_>>>(values.Current(), run_docids_.data(),
                                                                     run_tfs_.data(), static_cast<uint32_t>(n),
                                                                     sorted_docids_.data(), sorted_tfs_.data());
            cuda::check_launch("gather_postings");
            result_term_ids_.reserve(n);
            result_docids_.reserve(n);
            result_tfs_.reserve(n);
            copy_to_host(result_term_ids_.data(), keys.Current(), n);
            copy_to_host(result_docids_.data(), sorted_docids_.data(), n);
            copy_to_host(result_tfs_.data(), sorted_tfs_.data(), n);
            if (options_.keep_occurrence_order) {
                result_order_.reserve(n);
                copy_to_host(result_order_.data(), values.Current(), n);
                out.occurrence_index = result_order_.data();
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
                if (id >= terms) throw std::runtime_error(device_name_ + ": B-tree term numbering is inconsistent");
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
            : keys(pinned), key_offsets(pinned), key_lengths(pinned), collections(pinned), docids(pinned), tfs(pinned),
              counters_after(pinned) {
            const size_t n = options.staging_occurrences;
            keys.reserve(options.staging_key_bytes);
            key_offsets.reserve(n);
            key_lengths.reserve(n);
            collections.reserve(n);
            docids.reserve(n);
            tfs.reserve(n);
            counters_after.reserve(2);
            view.key_bytes = keys.data();
            view.key_offsets = key_offsets.data();
            view.key_lengths = key_lengths.data();
            view.collections = collections.data();
            view.docids = docids.data();
            view.tfs = tfs.data();
            view.occurrence_capacity = n;
            view.key_byte_capacity = options.staging_key_bytes;
            check_event(events);
        }
        ~StagingSlot() {
            cudaEventDestroy(events.start);
            cudaEventDestroy(events.done);
        }
        PinnedArray<char> keys;
        PinnedArray<uint32_t> key_offsets;
        PinnedArray<uint8_t> key_lengths;
        PinnedArray<uint16_t> collections;
        PinnedArray<uint32_t> docids;
        PinnedArray<uint32_t> tfs;
        PinnedArray<unsigned long long> counters_after;  // the dictionary's counters once this chunk is in
        TimedEvents events;
        GpuStaging view;
        bool in_flight = false;
        uint64_t sequence = 0;
        size_t submitted_occurrences = 0;
        size_t submitted_key_bytes = 0;
    };

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
        check(cudaMemcpyAsync(to, from, count * sizeof(T), cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync (H2D)");
    }
    template <class T>
    void copy_to_host(T* to, const T* from, size_t count) {
        check(cudaMemcpyAsync(to, from, count * sizeof(T), cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync (D2H)");
    }

    // The chunk in `slot` and all before it are done: take their counters.
    void wait_for(StagingSlot& slot) {
        const auto start = std::chrono::steady_clock::now();
        check(cudaEventSynchronize(slot.events.done), "device work of a staged chunk");
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
    }

    void synchronize() {
        const auto start = std::chrono::steady_clock::now();
        check(cudaStreamSynchronize(stream_), "GPU indexer device work");
        host_wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        StagingSlot* first = slots_[0].get();
        StagingSlot* second = slots_[1].get();
        if (first->sequence > second->sequence) std::swap(first, second);
        if (first->in_flight) complete(*first);
        if (second->in_flight) complete(*second);
    }

    void reserve_dictionary(uint64_t terms, uint64_t key_bytes) {
        // Capacities may exceed what is used; copying all of it keeps growth
        // free of host synchronization (the device knows what is used).
        term_offsets_.reserve(terms, term_offsets_.capacity(), stream_);
        term_lengths_.reserve(terms, term_lengths_.capacity(), stream_);
        term_collections_.reserve(terms, term_collections_.capacity(), stream_);
        arena_.reserve(std::max<uint64_t>(key_bytes, 1), arena_.capacity(), stream_);
        if (options_.algorithm == GpuDictionaryAlgorithm::hash) {
            if (table_capacity_ < 2 * terms) grow_table(bit_ceil(2 * terms));
        } else {
            cuda::btree_reserve(btree_, terms, static_cast<uint32_t>(options_.staging_occurrences), stream_);
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
    DeviceArray<char> chunk_keys_;
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
    size_t run_count_ = 0;
    DeviceArray<uint32_t> sort_keys_alt_;
    DeviceArray<uint32_t> sort_values_;
    DeviceArray<uint32_t> sort_values_alt_;
    DeviceArray<uint32_t> sorted_docids_;
    DeviceArray<uint32_t> sorted_tfs_;
    DeviceArray<unsigned char> sort_temp_;
    PinnedArray<uint32_t> result_term_ids_;
    PinnedArray<uint32_t> result_docids_;
    PinnedArray<uint32_t> result_tfs_;
    PinnedArray<uint32_t> result_order_;
};

}  // namespace

std::unique_ptr<GpuTermIndexer> create_gpu_term_indexer(const GpuTermIndexerOptions& options) {
    return std::make_unique<CudaTermIndexer>(options);
}

}  // namespace invidx
