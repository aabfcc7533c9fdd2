// OR on the device (devices/cuda/query/query_kernels.hpp): term at a time
// into per-slot dense accumulators that are never cleared. An entry whose
// stamp is not the batch's holds a finished query's score and reads as 0;
// the first posting of a document in a query replaces it (0.0 + c is c, so
// the sum is the CPU's) and records the document as touched: the candidates
// are the touched documents, with no pass over the whole collection.
#include "devices/cuda/common/cuda_check.hpp"
#include "devices/cuda/query/bm25_device.cuh"
#include "devices/cuda/query/query_kernels.hpp"

namespace invidx::cuda {
namespace {

__global__ void __launch_bounds__(kBlockPostings)
    or_round(const BlockTask* tasks, const DeviceList* lists, Scoring scoring, Accumulators accumulators,
             uint2* touched, Regions regions, SlotCounters counters) {
    __shared__ Bp128Scan::TempStorage scan;
    __shared__ uint32_t fresh_in_block;
    __shared__ uint32_t fresh_base;
    const BlockTask task = tasks[blockIdx.x];
    const DeviceList list = lists[task.list];
    if (threadIdx.x == 0) fresh_in_block = 0;
    uint32_t docid = 0, tf = 0;
    const bool valid = read_block_posting(list, task.block, scan, docid, tf);
    __syncthreads();
    bool fresh = false;
    uint32_t fresh_rank = 0;
    if (valid) {
        // A term's docids are distinct: no two threads of a round share an entry.
        const size_t entry = static_cast<size_t>(task.slot) * accumulators.documents + docid;
        const double contribution = posting_contribution(scoring, task.slot, task.term, tf,
                                                         scoring.impacts ? 0.0 : scoring.norms[docid]);
        fresh = accumulators.stamps[entry] != accumulators.stamp;
        if (fresh) {
            accumulators.stamps[entry] = accumulators.stamp;
            accumulators.scores[entry] = contribution;
            fresh_rank = atomicAdd(&fresh_in_block, 1u);
        } else {
            accumulators.scores[entry] = __dadd_rn(accumulators.scores[entry], contribution);
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        // One global atomic per block for the slot's touched documents.
        fresh_base = regions.base[task.slot] + (fresh_in_block ? atomicAdd(&counters.matches[task.slot], fresh_in_block) : 0);
        atomicAdd(&counters.blocks_decoded[task.slot], 1u);
    }
    __syncthreads();
    if (fresh) touched[fresh_base + fresh_rank] = make_uint2(task.slot, docid);
}

// blockIdx.y: the slot.
__global__ void or_keys(const uint2* touched, Regions regions, Accumulators accumulators, uint32_t docid_bits,
                        SortKey* keys, SlotCounters counters) {
    const uint32_t slot = blockIdx.y;
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= regions.size[slot]) return;
    const uint32_t at = regions.base[slot] + i;
    if (i >= counters.matches[slot]) {
        keys[at] = last_sort_key();
        return;
    }
    const uint2 entry = touched[at];
    const double score = accumulators.scores[static_cast<size_t>(entry.x) * accumulators.documents + entry.y];
    keys[at] = make_sort_key(entry.x, score, entry.y, docid_bits);
}

}  // namespace

void launch_or_round(const BlockTask* tasks, uint32_t task_count, const DeviceList* lists, const Scoring& scoring,
                     const Accumulators& accumulators, uint2* touched, const Regions& regions,
                     const SlotCounters& counters, cudaStream_t stream) {
    if (task_count == 0) return;
    or_round<<<task_count, kBlockPostings, 0, stream>>>(tasks, lists, scoring, accumulators, touched, regions,
                                                        counters);
    check_launch("or_round");
}

void launch_or_keys(const uint2* touched, const Regions& regions, uint32_t slots, const Accumulators& accumulators,
                    uint32_t docid_bits, SortKey* keys, const SlotCounters& counters, cudaStream_t stream) {
    if (regions.largest == 0 || slots == 0) return;
    constexpr unsigned kThreads = 256;
    const dim3 grid((regions.largest + kThreads - 1) / kThreads, slots);
    or_keys<<<grid, kThreads, 0, stream>>>(touched, regions, accumulators, docid_bits, keys, counters);
    check_launch("or_keys");
}

}  // namespace invidx::cuda
