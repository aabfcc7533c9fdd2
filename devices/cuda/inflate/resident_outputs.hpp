// The device buffers a GpuInflater's batches decode into when their text is
// to stay on the device for the GPU parsers there (TextBlock::device_text):
// a fixed number, each made on first use and grown to the largest batch's
// text it held (at most the inflater's output), so the device memory they
// hold is bounded; a batch that finds none free decodes into the inflater's own
// scratch buffer and its text is on the host only (it never waits: a
// buffer's blocks may wait in the frame node for text that this batch
// brings). A buffer goes back when the last handle to its text goes, on
// whatever host thread that is; the pool outlives the inflater while any
// handle does.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "devices/cuda/common/device_array.hpp"

namespace invidx::cuda {

class ResidentOutputs : public std::enable_shared_from_this<ResidentOutputs> {
public:
    // `buffers` of at most `most_bytes` each (the inflater's output).
    ResidentOutputs(int device, size_t buffers, size_t most_bytes) : device_(device), most_bytes_(most_bytes) {
        for (size_t i = 0; i < buffers; ++i) {
            buffers_.push_back(std::make_unique<DeviceArray<unsigned char>>(memory_));
            free_.push_back(buffers_.back().get());
        }
    }

    ~ResidentOutputs() {
        cudaSetDevice(device_);  // the buffers free on it (destructor path: no errors to report)
        buffers_.clear();
    }

    // A free buffer of at least `bytes` (made or grown on `stream`), or
    // null when every one is lent.
    DeviceArray<unsigned char>* take(size_t bytes, cudaStream_t stream) {
        DeviceArray<unsigned char>* buffer = nullptr;
        {
            std::lock_guard lock(mutex_);
            if (free_.empty()) {
                ++misses_;
                return nullptr;
            }
            buffer = free_.back();
            free_.pop_back();
            ++lent_;
        }
        if (buffer->capacity() < bytes) {
            // Doubled, but never past the inflater's output: made afresh at that size.
            const size_t grown = std::min(most_bytes_, std::max(bytes, 2 * buffer->capacity()));
            buffer->release_async(stream);
            buffer->reserve(std::max<size_t>(grown, 1), 0, stream);
        }
        return buffer;
    }

    // `buffer` (from take()) as the text of one batch: the handle's address
    // is its first byte; the buffer comes back with the last copy.
    std::shared_ptr<const char> lend(DeviceArray<unsigned char>* buffer) {
        auto pool = shared_from_this();
        return std::shared_ptr<const char>(reinterpret_cast<const char*>(buffer->data()),
                                           [pool, buffer](const char*) { pool->give_back(buffer); });
    }

    uint64_t lent() const {
        std::lock_guard lock(mutex_);
        return lent_;
    }
    uint64_t misses() const {
        std::lock_guard lock(mutex_);
        return misses_;
    }
    uint64_t device_bytes() const { return memory_.bytes; }

private:
    void give_back(DeviceArray<unsigned char>* buffer) {
        std::lock_guard lock(mutex_);
        free_.push_back(buffer);
    }

    const int device_;
    const size_t most_bytes_;
    MemoryCounter memory_;
    std::vector<std::unique_ptr<DeviceArray<unsigned char>>> buffers_;
    mutable std::mutex mutex_;
    std::vector<DeviceArray<unsigned char>*> free_;
    uint64_t lent_ = 0;
    uint64_t misses_ = 0;
};

}  // namespace invidx::cuda
