// A cached list as the query kernels see it: blocks of 128 postings, each
// with its last docid; the blocks either bp128-compressed (query.post's own
// bytes, decoded per query) or already decoded on the host. One 128-thread
// block reads one list block: thread i gets posting i.
#pragma once

#include <cstdint>

#include "devices/cuda/codecs/bp128_decode.cuh"

namespace invidx::cuda {

constexpr unsigned kBlockPostings = 128;

struct DeviceList {
    const unsigned char* bytes = nullptr;    // bp128: every block's docid group, then its tf group (null: decoded)
    const uint32_t* docid_starts = nullptr;  // bp128: per block, offset of its docid group in bytes
    const uint32_t* tf_starts = nullptr;     // bp128: per block, offset of its tf group
    const uint32_t* last_docids = nullptr;   // per block
    const uint32_t* docids = nullptr;        // decoded lists
    const uint32_t* tfs = nullptr;
    uint32_t postings = 0;
    uint32_t blocks = 0;
};

__host__ __device__ inline uint32_t block_postings(const DeviceList& list, uint32_t block) {
    return block + 1 < list.blocks ? kBlockPostings : list.postings - kBlockPostings * block;
}

// Posting threadIdx.x of `block`: every thread of the 128-thread block calls
// it (the docid prefix sum is block-wide). Returns false for threads past the
// block's last posting.
__device__ inline bool read_block_posting(const DeviceList& list, uint32_t block, Bp128Scan::TempStorage& scan,
                                          uint32_t& docid, uint32_t& tf) {
    const unsigned i = threadIdx.x;
    const uint32_t count = block_postings(list, block);
    if (list.bytes) {
        const uint32_t first = block == 0 ? 0 : list.last_docids[block - 1] + 1;
        docid = bp128_decode_group<true>(list.bytes + list.docid_starts[block], first, scan, count);
        tf = bp128_decode_group<false>(list.bytes + list.tf_starts[block], 0, scan, count) + 1;  // stored tf − 1
    } else if (i < count) {
        docid = list.docids[kBlockPostings * block + i];
        tf = list.tfs[kBlockPostings * block + i];
    }
    return i < count;
}

}  // namespace invidx::cuda
