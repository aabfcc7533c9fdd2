// AND on the device (devices/cuda/query/query_kernels.hpp), Ding et al.'s
// merge-based intersection with block selection: the candidates are the
// shortest list's postings; for each longer list (in order of length) every
// live candidate finds, by the blocks' last docids alone, the one block that
// could hold it, only those blocks are decoded, and each candidate
// binary-searches its block ("parallel merge find"). The survivors' tfs are
// kept per term, so they are scored at the end in query order.
#include "devices/cuda/common/cuda_check.hpp"
#include "devices/cuda/query/bm25_device.cuh"
#include "devices/cuda/query/query_kernels.hpp"

namespace invidx::cuda {
namespace {

constexpr unsigned kThreads = 256;

unsigned grid_for(uint32_t count) { return (count + kThreads - 1) / kThreads; }

__global__ void __launch_bounds__(kBlockPostings)
    and_first(const BlockTask* tasks, const DeviceList* lists, const uint32_t* first_candidate, Candidates candidates,
              uint32_t max_terms, SlotCounters counters) {
    __shared__ Bp128Scan::TempStorage scan;
    const BlockTask task = tasks[blockIdx.x];
    uint32_t docid = 0, tf = 0;
    if (read_block_posting(lists[task.list], task.block, scan, docid, tf)) {
        const uint32_t c = first_candidate[task.slot] + kBlockPostings * task.block + threadIdx.x;
        candidates.docids[c] = docid;
        candidates.slots[c] = task.slot;
        candidates.alive[c] = 1;
        candidates.tfs[static_cast<size_t>(c) * max_terms + task.term] = tf;
    }
    if (threadIdx.x == 0) atomicAdd(&counters.blocks_decoded[task.slot], 1u);
}

// First block whose last docid is >= the candidate's: the only one that can hold it.
__global__ void and_select(const DeviceList* lists, const LevelList* level, Candidates candidates,
                           LevelScratch scratch) {
    const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= candidates.count || !candidates.alive[c]) return;
    const LevelList at = level[candidates.slots[c]];
    if (at.list == kNoList) return;
    const DeviceList list = lists[at.list];
    const uint32_t docid = candidates.docids[c];
    uint32_t low = 0, high = list.blocks;
    while (low < high) {
        const uint32_t middle = (low + high) / 2;
        if (list.last_docids[middle] < docid) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    if (low == list.blocks) {
        candidates.alive[c] = 0;  // past the list's last docid
        return;
    }
    candidates.blocks[c] = low;
    scratch.needed[at.needed_base + low] = scratch.stamp;  // racing writers store the same value
}

__global__ void __launch_bounds__(kBlockPostings)
    and_decode(const BlockTask* tasks, const DeviceList* lists, const LevelList* level, LevelScratch scratch,
               SlotCounters counters) {
    __shared__ Bp128Scan::TempStorage scan;
    const BlockTask task = tasks[blockIdx.x];
    const LevelList at = level[task.slot];
    const uint32_t needed = at.needed_base + task.block;
    if (scratch.needed[needed] != scratch.stamp) return;  // no candidate can be here: not decoded
    uint32_t docid = 0, tf = 0;
    if (read_block_posting(lists[task.list], task.block, scan, docid, tf)) {
        const size_t out = static_cast<size_t>(needed) * kBlockPostings + threadIdx.x;
        scratch.docids[out] = docid;
        scratch.tfs[out] = tf;
    }
    if (threadIdx.x == 0) atomicAdd(&counters.blocks_decoded[task.slot], 1u);
}

__global__ void and_find(const DeviceList* lists, const LevelList* level, Candidates candidates, uint32_t max_terms,
                         LevelScratch scratch) {
    const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= candidates.count || !candidates.alive[c]) return;
    const LevelList at = level[candidates.slots[c]];
    if (at.list == kNoList) return;
    const uint32_t block = candidates.blocks[c];
    const uint32_t count = block_postings(lists[at.list], block);
    const size_t start = static_cast<size_t>(at.needed_base + block) * kBlockPostings;
    const uint32_t docid = candidates.docids[c];
    uint32_t low = 0, high = count;
    while (low < high) {
        const uint32_t middle = (low + high) / 2;
        if (scratch.docids[start + middle] < docid) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    if (low < count && scratch.docids[start + low] == docid) {
        candidates.tfs[static_cast<size_t>(c) * max_terms + at.term] = scratch.tfs[start + low];
    } else {
        candidates.alive[c] = 0;
    }
}

__global__ void and_keys(Candidates candidates, Scoring scoring, uint32_t docid_bits, SortKey* keys,
                         SlotCounters counters) {
    const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= candidates.count) return;
    if (!candidates.alive[c]) {
        keys[c] = last_sort_key();
        return;
    }
    const uint32_t slot = candidates.slots[c];
    const uint32_t docid = candidates.docids[c];
    const double norm = scoring.impacts ? 0.0 : scoring.norms[docid];
    double score = 0.0;  // query order, as the CPU adds
    for (uint32_t t = 0; t < scoring.slot_terms[slot]; ++t) {
        score = __dadd_rn(score, posting_contribution(scoring, slot, t, candidates.tfs[static_cast<size_t>(c) * scoring.max_terms + t],
                                                      norm));
    }
    keys[c] = make_sort_key(slot, score, docid, docid_bits);
    atomicAdd(&counters.matches[slot], 1u);
}

}  // namespace

void launch_and_first(const BlockTask* tasks, uint32_t task_count, const DeviceList* lists,
                      const uint32_t* first_candidate, const Candidates& candidates, uint32_t max_terms,
                      const SlotCounters& counters, cudaStream_t stream) {
    if (task_count == 0) return;
    and_first<<<task_count, kBlockPostings, 0, stream>>>(tasks, lists, first_candidate, candidates, max_terms,
                                                         counters);
    check_launch("and_first");
}

void launch_and_level(const BlockTask* tasks, uint32_t task_count, const DeviceList* lists, const LevelList* level,
                      const Candidates& candidates, uint32_t max_terms, const LevelScratch& scratch,
                      const SlotCounters& counters, cudaStream_t stream) {
    if (task_count == 0 || candidates.count == 0) return;
    and_select<<<grid_for(candidates.count), kThreads, 0, stream>>>(lists, level, candidates, scratch);
    check_launch("and_select");
    and_decode<<<task_count, kBlockPostings, 0, stream>>>(tasks, lists, level, scratch, counters);
    check_launch("and_decode");
    and_find<<<grid_for(candidates.count), kThreads, 0, stream>>>(lists, level, candidates, max_terms, scratch);
    check_launch("and_find");
}

void launch_and_keys(const Candidates& candidates, const Scoring& scoring, uint32_t docid_bits, SortKey* keys,
                     const SlotCounters& counters, cudaStream_t stream) {
    if (candidates.count == 0) return;
    and_keys<<<grid_for(candidates.count), kThreads, 0, stream>>>(candidates, scoring, docid_bits, keys, counters);
    check_launch("and_keys");
}

}  // namespace invidx::cuda
