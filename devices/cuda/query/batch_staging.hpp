// The tables a batch of GPU queries needs (list views, block tasks, idfs,
// levels, output offsets), gathered on the host into one pinned buffer and
// sent to the device with one copy.
#pragma once

#include <cstddef>
#include <cstring>
#include <vector>

#include "devices/cuda/common/device_array.hpp"

namespace invidx::cuda {

class BatchStaging {
public:
    explicit BatchStaging(MemoryCounter& memory) : pinned_(memory), device_(memory) {}

    void clear() { host_.clear(); }

    // Appends a table (16-byte aligned); returns its offset.
    template <class T>
    size_t add(const std::vector<T>& table) {
        host_.resize((host_.size() + 15) / 16 * 16);
        const size_t offset = host_.size();
        host_.resize(offset + table.size() * sizeof(T));
        if (!table.empty()) std::memcpy(host_.data() + offset, table.data(), table.size() * sizeof(T));
        return offset;
    }

    // Queues the copy; the previous batch must be done with the buffers.
    void upload(cudaStream_t stream) {
        if (host_.empty()) return;
        pinned_.reserve(host_.size());
        std::memcpy(pinned_.data(), host_.data(), host_.size());
        device_.reserve(host_.size(), 0, stream);
        check(cudaMemcpyAsync(device_.data(), pinned_.data(), host_.size(), cudaMemcpyHostToDevice, stream),
              "batch tables");
    }

    template <class T>
    T* on_device(size_t offset) const {
        return reinterpret_cast<T*>(device_.data() + offset);
    }

private:
    std::vector<unsigned char> host_;
    PinnedArray<unsigned char> pinned_;
    DeviceArray<unsigned char> device_;
};

}  // namespace invidx::cuda
