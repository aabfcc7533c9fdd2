// Dense impact OR on the device (devices/cuda/query/query_kernels.hpp):
// for long weighted impact queries, whose lists touch most documents.
//
// Scatter: the batch's (query, term) pairs are one flat sequence of list
// blocks (a prefix sum over their lengths, slot by slot), and each 128-thread
// block decodes kDenseBlocksPerCta consecutive ones and adds impact · weight
// to the slot's accumulator with an integer atomic. Integer sums are exact in
// any order, so all terms of all queries run in one launch: a batch no longer
// waits term position by term position for its longest query. Blocks run in
// about launch order, so the ones in flight touch one or two slots'
// accumulators at a time, which stay in L2.
//
// Selection: the top k of a slot are its k largest keys
// score · 2^docid_bits + (2^docid_bits − 1 − docid) over the documents of
// score > 0: unique keys that order as the CPU ranks (higher score, then
// smaller docid). A scan finds each slot's matches and largest score; each
// histogram pass splits the bucket holding the take-th largest key by its
// next kDenseDigitBits bits (the last block of a slot to finish picks the
// digit), until the bucket and every key above it fit `capacity`; the
// compaction writes those keys as sort keys and sets every entry back to 0,
// so the accumulators cost no separate reset.
#include "devices/cuda/common/cuda_check.hpp"
#include "devices/cuda/query/query_kernels.hpp"

namespace invidx::cuda {
namespace {

constexpr unsigned kScanThreads = 256;
constexpr uint32_t kDigits = 1u << kDenseDigitBits;

// Keys: 64 bits hold a 32-bit score and up to 32 docid bits; 64-bit
// accumulators hold scores below 2^53, so their keys need up to 85 bits.
template <class Acc>
struct KeyOf {
    using type = unsigned long long;
};
template <>
struct KeyOf<unsigned long long> {
    using type = unsigned __int128;
};

template <class Key>
__device__ inline Key shift_right(Key key, uint32_t bits) {
    return bits >= 8 * sizeof(Key) ? Key{0} : key >> bits;
}

template <class Key>
__device__ inline Key dense_key(unsigned long long score, uint32_t docid, uint32_t docid_bits) {
    const uint32_t mask = docid_bits >= 32 ? 0xFFFFFFFFu : (1u << docid_bits) - 1;
    return (static_cast<Key>(score) << docid_bits) | static_cast<Key>(mask - docid);
}

template <class Key>
__device__ inline Key read_prefix(const DenseSelect& state) {
    if constexpr (sizeof(Key) > 8) return (static_cast<Key>(state.prefix_hi) << 64) | state.prefix_lo;
    return static_cast<Key>(state.prefix_lo);
}

template <class Key>
__device__ inline void write_prefix(DenseSelect& state, Key prefix) {
    state.prefix_lo = static_cast<unsigned long long>(prefix);
    if constexpr (sizeof(Key) > 8) state.prefix_hi = static_cast<unsigned long long>(prefix >> 64);
}

__device__ inline uint32_t bits_of(unsigned long long value) { return value == 0 ? 0 : 64 - __clzll(value); }

// True in exactly one thread block of the slot: the last of the launch's
// blocks to get here (the others' global writes are visible to it).
__device__ inline bool last_block_of_slot(DenseSelect& state) {
    __shared__ bool last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(&state.finished, 1u) == gridDim.x - 1;
    __syncthreads();
    if (last) __threadfence();
    return last;
}

template <class Acc>
__global__ void __launch_bounds__(kBlockPostings)
    dense_scatter(const DensePair* pairs, const uint32_t* pair_first, uint32_t pair_count, uint32_t total_blocks,
                  const DeviceList* lists, Acc* values, size_t stride) {
    __shared__ Bp128Scan::TempStorage scan;
    uint32_t at = blockIdx.x * kDenseBlocksPerCta;
    if (at >= total_blocks) return;
    const uint32_t end = min(total_blocks, at + kDenseBlocksPerCta);
    // The last pair starting at or before `at` (the same in every thread).
    uint32_t low = 0, high = pair_count;
    while (high - low > 1) {
        const uint32_t middle = (low + high) / 2;
        if (pair_first[middle] <= at) low = middle;
        else high = middle;
    }
    uint32_t p = low;
    for (; at < end; ++at) {
        while (at >= pair_first[p + 1]) ++p;  // the next pair (skipping empty lists)
        const DensePair pair = pairs[p];
        uint32_t docid = 0, value = 0;
        if (read_block_posting(lists[pair.list], at - pair_first[p], scan, docid, value)) {
            // The host checked weight · the list's largest value against the accumulator's width.
            atomicAdd(values + pair.slot * stride + docid, static_cast<Acc>(pair.weight * value));
        }
        __syncthreads();  // `scan` is reused by the next block
    }
}

// blockIdx.y: the slot; blockIdx.x: a chunk of its accumulator.
template <class Acc>
__global__ void __launch_bounds__(kScanThreads) dense_scan(const Acc* values, size_t stride, uint32_t documents,
                                                          DenseSelection selection) {
    const uint32_t slot = blockIdx.y;
    DenseSelect& state = selection.states[slot];
    const Acc* entries = values + slot * stride;
    const uint32_t begin = blockIdx.x * kDenseChunk;
    const uint32_t end = min(documents, begin + kDenseChunk);
    uint32_t matches = 0;
    unsigned long long best = 0;
    for (uint32_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
        const unsigned long long score = entries[i];
        matches += score != 0;
        best = max(best, score);
    }
    matches = __reduce_add_sync(0xFFFFFFFFu, matches);
    for (int offset = 16; offset > 0; offset /= 2) best = max(best, __shfl_down_sync(0xFFFFFFFFu, best, offset));
    if (threadIdx.x % 32 == 0) {
        if (matches) atomicAdd(&selection.matches[slot], matches);
        if (best) atomicMax(&state.max_score, best);
    }
    if (!last_block_of_slot(state) || threadIdx.x != 0) return;
    const uint32_t all = atomicAdd(&selection.matches[slot], 0u);
    const unsigned long long largest = atomicAdd(&state.max_score, 0ull);
    state.finished = 0;
    state.take = min(selection.k, all);
    // The first bucket is every key (the bits from the largest key's top up are 0 in all).
    state.bucket_top = bits_of(largest) + selection.docid_bits;
    state.prefix_hi = state.prefix_lo = 0;
    state.above = 0;
    state.done = all <= selection.capacity;
}

template <class Acc>
__global__ void __launch_bounds__(kScanThreads) dense_histogram(const Acc* values, size_t stride, uint32_t documents,
                                                               DenseSelection selection) {
    using Key = typename KeyOf<Acc>::type;
    __shared__ uint32_t histogram[kDigits];
    const uint32_t slot = blockIdx.y;
    DenseSelect& state = selection.states[slot];
    if (state.done) return;  // set by an earlier launch: the same in every block of the slot
    const uint32_t top = state.bucket_top;
    const uint32_t width = min(kDenseDigitBits, top);
    const uint32_t low = top - width;
    const Key prefix = read_prefix<Key>(state);
    for (uint32_t d = threadIdx.x; d < kDigits; d += blockDim.x) histogram[d] = 0;
    __syncthreads();
    const Acc* entries = values + slot * stride;
    const uint32_t begin = blockIdx.x * kDenseChunk;
    const uint32_t end = min(documents, begin + kDenseChunk);
    for (uint32_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
        const Acc score = entries[i];
        if (score == 0) continue;
        const Key key = dense_key<Key>(score, i, selection.docid_bits);
        if (shift_right(key, top) != prefix) continue;
        atomicAdd(&histogram[static_cast<uint32_t>(key >> low) & ((1u << width) - 1)], 1u);
    }
    __syncthreads();
    uint32_t* global = selection.histograms + slot * kDigits;
    for (uint32_t d = threadIdx.x; d < kDigits; d += blockDim.x) {
        if (histogram[d]) atomicAdd(&global[d], histogram[d]);
    }
    if (!last_block_of_slot(state)) return;
    // The slot's whole histogram (read past L1), cleared for the next pass.
    for (uint32_t d = threadIdx.x; d < kDigits; d += blockDim.x) {
        histogram[d] = __ldcg(&global[d]);
        global[d] = 0;
    }
    __syncthreads();
    if (threadIdx.x != 0) return;
    // From the largest digit down to the one holding the take-th largest key.
    uint32_t digit = (1u << width) - 1, sum = state.above;
    while (digit > 0 && sum + histogram[digit] < state.take) sum += histogram[digit--];
    write_prefix(state, (prefix << width) | static_cast<Key>(digit));
    state.bucket_top = low;
    state.above = sum;
    state.finished = 0;
    // At bit 0 the bucket is one key, the take-th: sum + 1 = take keys.
    state.done = sum + histogram[digit] <= selection.capacity || low == 0;
}

template <class Acc>
__global__ void __launch_bounds__(kScanThreads) dense_compact(Acc* values, size_t stride, uint32_t documents,
                                                             DenseSelection selection, SortKey* keys) {
    using Key = typename KeyOf<Acc>::type;
    const uint32_t slot = blockIdx.y;
    DenseSelect& state = selection.states[slot];
    const uint32_t top = state.bucket_top;
    const Key prefix = read_prefix<Key>(state);
    Acc* entries = values + slot * stride;
    SortKey* region = keys + static_cast<size_t>(slot) * selection.capacity;
    const uint32_t begin = blockIdx.x * kDenseChunk;
    const uint32_t end = min(documents, begin + kDenseChunk);
    const uint32_t lane = threadIdx.x % 32;
    // Every thread of a warp runs the same iterations (the ballot needs them all).
    for (uint32_t base = begin; base < end; base += blockDim.x) {
        const uint32_t i = base + threadIdx.x;
        const Acc score = i < end ? entries[i] : Acc{0};
        bool keep = false;
        if (score != 0) {
            entries[i] = 0;
            keep = shift_right(dense_key<Key>(score, i, selection.docid_bits), top) >= prefix;
        }
        const uint32_t ballot = __ballot_sync(0xFFFFFFFFu, keep);
        if (ballot == 0) continue;
        uint32_t first = 0;
        if (lane == 0) first = atomicAdd(&selection.kept[slot], static_cast<uint32_t>(__popc(ballot)));
        first = __shfl_sync(0xFFFFFFFFu, first, 0);
        const uint32_t at = first + __popc(ballot & ((1u << lane) - 1));
        if (keep && at < selection.capacity) {
            region[at] = make_sort_key(slot, static_cast<double>(score), i, selection.docid_bits);  // exact below 2^53
        }
    }
}

unsigned chunks_of(uint32_t documents) { return (documents + kDenseChunk - 1) / kDenseChunk; }

}  // namespace

void launch_dense_scatter(const DensePair* pairs, const uint32_t* pair_first, uint32_t pair_count,
                          uint32_t total_blocks, const DeviceList* lists, const DenseAccumulators& accumulators,
                          cudaStream_t stream) {
    if (total_blocks == 0 || pair_count == 0) return;
    const unsigned grid = (total_blocks + kDenseBlocksPerCta - 1) / kDenseBlocksPerCta;
    if (accumulators.wide) {
        dense_scatter<<<grid, kBlockPostings, 0, stream>>>(pairs, pair_first, pair_count, total_blocks, lists,
                                                           static_cast<unsigned long long*>(accumulators.values),
                                                           accumulators.stride);
    } else {
        dense_scatter<<<grid, kBlockPostings, 0, stream>>>(pairs, pair_first, pair_count, total_blocks, lists,
                                                           static_cast<unsigned*>(accumulators.values),
                                                           accumulators.stride);
    }
    check_launch("dense_scatter");
}

void launch_dense_scan(const DenseAccumulators& accumulators, uint32_t slots, const DenseSelection& selection,
                       cudaStream_t stream) {
    if (slots == 0 || accumulators.documents == 0) return;
    const dim3 grid(chunks_of(accumulators.documents), slots);
    if (accumulators.wide) {
        dense_scan<<<grid, kScanThreads, 0, stream>>>(static_cast<const unsigned long long*>(accumulators.values),
                                                      accumulators.stride, accumulators.documents, selection);
    } else {
        dense_scan<<<grid, kScanThreads, 0, stream>>>(static_cast<const unsigned*>(accumulators.values),
                                                      accumulators.stride, accumulators.documents, selection);
    }
    check_launch("dense_scan");
}

void launch_dense_histogram(const DenseAccumulators& accumulators, uint32_t slots, const DenseSelection& selection,
                            cudaStream_t stream) {
    if (slots == 0 || accumulators.documents == 0) return;
    const dim3 grid(chunks_of(accumulators.documents), slots);
    if (accumulators.wide) {
        dense_histogram<<<grid, kScanThreads, 0, stream>>>(static_cast<const unsigned long long*>(accumulators.values),
                                                           accumulators.stride, accumulators.documents, selection);
    } else {
        dense_histogram<<<grid, kScanThreads, 0, stream>>>(static_cast<const unsigned*>(accumulators.values),
                                                           accumulators.stride, accumulators.documents, selection);
    }
    check_launch("dense_histogram");
}

void launch_dense_compact(const DenseAccumulators& accumulators, uint32_t slots, const DenseSelection& selection,
                          SortKey* keys, cudaStream_t stream) {
    if (slots == 0 || accumulators.documents == 0) return;
    const dim3 grid(chunks_of(accumulators.documents), slots);
    if (accumulators.wide) {
        dense_compact<<<grid, kScanThreads, 0, stream>>>(static_cast<unsigned long long*>(accumulators.values),
                                                         accumulators.stride, accumulators.documents, selection, keys);
    } else {
        dense_compact<<<grid, kScanThreads, 0, stream>>>(static_cast<unsigned*>(accumulators.values),
                                                         accumulators.stride, accumulators.documents, selection, keys);
    }
    check_launch("dense_compact");
}

}  // namespace invidx::cuda
