// The device buffers a batch analyzer lends to batches whose terms stay on
// the device (invidx/resident_terms.hpp): a fixed number, so the device
// memory they hold is bounded; a batch that finds none free brings all its
// terms back instead (never waits, so the graph cannot stall on it). A
// buffer goes back when the last holder of its ResidentTerms lets go (the
// GPU indexer, once its device has read it), on whatever host thread that is.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "analysis/document_passes.hpp"
#include "devices/cuda/common/device_array.hpp"
#include "invidx/resident_terms.hpp"

namespace invidx::cuda {

class ResidentPool : public std::enable_shared_from_this<ResidentPool> {
public:
    struct Buffer {
        explicit Buffer(MemoryCounter& counter) : terms(counter), arena(counter) {}
        DeviceArray<document_passes::BatchTerm> terms;
        DeviceArray<unsigned char> arena;
    };

    ResidentPool(int device, size_t buffers) : device_(device) {
        for (size_t i = 0; i < buffers; ++i) {
            buffers_.push_back(std::make_unique<Buffer>(memory_));
            free_.push_back(buffers_.back().get());
        }
    }

    ~ResidentPool() {
        cudaSetDevice(device_);  // the buffers free on it (destructor path: no errors to report)
        buffers_.clear();
    }

    // A free buffer, or null when every one is lent. Grow it (on the
    // borrower's stream) only before lending it.
    Buffer* take() {
        std::lock_guard lock(mutex_);
        if (free_.empty()) return nullptr;
        Buffer* buffer = free_.back();
        free_.pop_back();
        return buffer;
    }

    // `buffer` (from take()) as the terms of one batch, given back to the
    // pool with the last copy of the handle. Fill in its counts before
    // handing it on.
    std::shared_ptr<ResidentTerms> lend(Buffer* buffer) {
        auto pool = shared_from_this();
        auto* terms = new ResidentTerms();
        terms->device = device_;
        return std::shared_ptr<ResidentTerms>(terms, [pool, buffer](ResidentTerms* lent) {
            delete lent;
            pool->give_back(buffer);
        });
    }

    // Device memory the buffers hold now and at most (grown by the one
    // analyzer thread that takes them).
    uint64_t device_bytes() const { return memory_.bytes; }
    uint64_t peak_device_bytes() const { return memory_.peak; }

private:
    void give_back(Buffer* buffer) {
        std::lock_guard lock(mutex_);
        free_.push_back(buffer);
    }

    const int device_;
    MemoryCounter memory_;
    std::vector<std::unique_ptr<Buffer>> buffers_;
    std::mutex mutex_;
    std::vector<Buffer*> free_;
};

}  // namespace invidx::cuda
