// Growable arrays in device memory and in pinned host memory, counting what
// they hold so that an indexer or the query processor can report (and bound)
// the device memory it uses.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

#include <cuda_runtime.h>

#include "devices/cuda/common/cuda_check.hpp"
#include "devices/cuda/common/page_locked_memory.hpp"

namespace invidx::cuda {

// Bytes held now and at most, shared by the arrays of one indexer.
struct MemoryCounter {
    uint64_t bytes = 0;
    uint64_t peak = 0;
    void add(uint64_t n) {
        bytes += n;
        peak = std::max(peak, bytes);
    }
    void remove(uint64_t n) { bytes -= n; }
};

template <class T>
class DeviceArray {
public:
    explicit DeviceArray(MemoryCounter& counter) : counter_(&counter) {}
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    ~DeviceArray() { release(); }

    T* data() const { return data_; }
    size_t capacity() const { return capacity_; }

    // Makes room for `needed` elements, at least doubling; copies the first
    // `keep` elements over. The caller has made sure no work on `stream`
    // still uses the old memory... or passes that stream, which orders it.
    void reserve(size_t needed, size_t keep, cudaStream_t stream) {
        if (needed <= capacity_) return;
        const size_t capacity = std::max(needed, capacity_ * 2);
        T* fresh = nullptr;
        check(cudaMallocAsync(reinterpret_cast<void**>(&fresh), capacity * sizeof(T), stream), "cudaMallocAsync");
        if (keep > 0) {
            check(cudaMemcpyAsync(fresh, data_, std::min(keep, capacity_) * sizeof(T), cudaMemcpyDeviceToDevice, stream),
                  "cudaMemcpyAsync (grow)");
        }
        if (data_) check(cudaFreeAsync(data_, stream), "cudaFreeAsync");
        counter_->remove(capacity_ * sizeof(T));
        data_ = fresh;
        capacity_ = capacity;
        counter_->add(capacity_ * sizeof(T));
    }

    // Exchanges contents with another array of the same counter.
    void swap(DeviceArray& other) {
        std::swap(data_, other.data_);
        std::swap(capacity_, other.capacity_);
    }

    // Frees once the work queued on `stream` before now is done.
    void release_async(cudaStream_t stream) {
        if (data_) check(cudaFreeAsync(data_, stream), "cudaFreeAsync");
        counter_->remove(capacity_ * sizeof(T));
        data_ = nullptr;
        capacity_ = 0;
    }

    void release() {
        if (data_) cudaFree(data_);  // destructor path: errors have nowhere to go
        counter_->remove(capacity_ * sizeof(T));
        data_ = nullptr;
        capacity_ = 0;
    }

private:
    MemoryCounter* counter_;
    T* data_ = nullptr;
    size_t capacity_ = 0;
};

template <class T>
class PinnedArray {
public:
    explicit PinnedArray(MemoryCounter& counter) : counter_(&counter) {}
    PinnedArray(const PinnedArray&) = delete;
    PinnedArray& operator=(const PinnedArray&) = delete;
    ~PinnedArray() {
        free_page_locked(block_);
        counter_->remove(capacity_ * sizeof(T));
    }

    T* data() const { return data_; }
    size_t capacity() const { return capacity_; }

    // Contents are not kept: pinned arrays are refilled after they grow.
    void reserve(size_t needed) {
        if (needed <= capacity_) return;
        const size_t capacity = std::max(needed, capacity_ * 2);
        free_page_locked(block_);
        counter_->remove(capacity_ * sizeof(T));
        block_ = {};
        data_ = nullptr;
        capacity_ = 0;
        // Made without stalling the threads beside it (page_locked_memory.hpp).
        block_ = allocate_page_locked(capacity * sizeof(T));
        data_ = static_cast<T*>(block_.data);
        capacity_ = capacity;
        counter_->add(capacity_ * sizeof(T));
    }

private:
    MemoryCounter* counter_;
    PageLockedBlock block_;
    T* data_ = nullptr;
    size_t capacity_ = 0;
};

}  // namespace invidx::cuda
