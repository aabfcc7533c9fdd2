// The device's list cache for GPU queries: lists uploaded once, kept until
// the cache would pass its byte budget, least recently used first out. A
// bp128 list stays compressed (devices/cuda/query/device_list.cuh), which
// holds several times more lists in the same bytes than decoded ones.
//
// A batch of queries holds shared references to the lists it uses, so a list
// evicted while the batch is being planned or run (a cache smaller than the
// batch's lists) lives on until the batch is done, then is freed in stream
// order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <unordered_map>

#include "devices/cuda/common/device_array.hpp"
#include "devices/cuda/query/device_list.cuh"
#include "devices/gpu_query.hpp"

namespace invidx::cuda {

class CachedList {
public:
    CachedList(MemoryCounter& memory, cudaStream_t stream) : blob_(memory), stream_(stream) {}
    CachedList(const CachedList&) = delete;
    CachedList& operator=(const CachedList&) = delete;
    ~CachedList() { blob_.release_async(stream_); }

    // Uploads `list` (pageable copy: staged before the call returns).
    void upload(const GpuList& list);
    const DeviceList& view() const { return view_; }
    size_t bytes() const { return blob_.capacity(); }
    // At least the list's largest tf (impact): exact for a decoded list, 2^b
    // for a bp128 one whose widest value group has b bits (values are stored
    // minus one). Bounds the dense impact path's sums (gpu_query.cu).
    uint64_t max_value() const { return max_value_; }

private:
    DeviceArray<unsigned char> blob_;  // block table, then bytes or decoded postings
    cudaStream_t stream_;
    DeviceList view_;
    uint64_t max_value_ = 0;
};

struct ListCacheStats {
    uint64_t hits = 0;
    uint64_t misses = 0;
};

class ListCache {
public:
    ListCache(MemoryCounter& memory, cudaStream_t stream, size_t budget_bytes)
        : memory_(memory), stream_(stream), budget_(budget_bytes) {}

    // The term's list on the device, loaded (and older lists evicted) on a miss.
    std::shared_ptr<const CachedList> fetch(const GpuQueryTerm& term);

    size_t bytes() const { return used_; }
    size_t lists() const { return entries_.size(); }
    const ListCacheStats& stats() const { return stats_; }
    void clear();

private:
    struct Entry {
        std::shared_ptr<CachedList> list;
        std::list<uint64_t>::iterator recent;
    };

    MemoryCounter& memory_;
    cudaStream_t stream_;
    size_t budget_;
    size_t used_ = 0;
    std::unordered_map<uint64_t, Entry> entries_;
    std::list<uint64_t> recency_;  // most recent first
    ListCacheStats stats_;
};

}  // namespace invidx::cuda
