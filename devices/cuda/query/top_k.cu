// The top k of every query of a batch at once (devices/cuda/query/sort_key.cuh:
// keys order by slot, then rank): one block per slot selecting and sorting
// its region in shared memory, or, for large regions, one radix sort of the
// batch's keys and each slot's first k gathered; either way into the block
// the host copies back.
#include <cub/device/device_radix_sort.cuh>

#include "devices/cuda/common/cuda_check.hpp"
#include "devices/cuda/query/query_kernels.hpp"

namespace invidx::cuda {
namespace {

// One block per slot; the slot's keys start after the earlier slots' matches.
__global__ void gather_top(const SortKey* sorted, const uint32_t* matches, const uint32_t* out_base, uint32_t k,
                           SortKey* out) {
    __shared__ uint32_t start;
    const uint32_t slot = blockIdx.x;
    if (threadIdx.x == 0) {
        uint32_t sum = 0;
        for (uint32_t s = 0; s < slot; ++s) sum += matches[s];
        start = sum;
    }
    __syncthreads();
    const uint32_t take = min(k, matches[slot]);
    for (uint32_t i = threadIdx.x; i < take; i += blockDim.x) out[out_base[slot] + i] = sorted[start + i];
}

using Key128 = unsigned __int128;

__device__ inline Key128 to_128(const SortKey& key) { return (static_cast<Key128>(key.hi) << 64) | key.lo; }

// Bits above `bit` (bit 128: none).
__device__ inline Key128 above(Key128 key, int bit) { return bit >= 128 ? Key128{0} : key >> bit; }

// One block per slot. A region of more than kBlockTopK keys is first narrowed
// by radix select: 8-bit digits from the highest bit in which the slot's keys
// differ, each pass a shared-memory histogram of the keys still in the
// bucket, until the bucket holding the take-th smallest key, with every key
// below it, fits kBlockTopK. Those keys are gathered into shared memory and
// bitonic-sorted (padded with last keys to a power of two); the first take
// are the slot's top k.
__global__ void __launch_bounds__(1024)
    select_top_k(const SortKey* keys, Regions regions, const uint32_t* matches, const uint32_t* out_base, uint32_t k,
                 SortKey* out) {
    __shared__ unsigned long long his[kBlockTopK];
    __shared__ unsigned long long los[kBlockTopK];
    __shared__ uint32_t histogram[256];
    __shared__ Key128 limit;  // keys whose bits from limit_bit up are <= limit are kept
    __shared__ int limit_bit;
    __shared__ uint32_t kept;
    const uint32_t slot = blockIdx.x;
    const uint32_t n = regions.size[slot];
    const SortKey* region = keys + regions.base[slot];
    const uint32_t take = min(k, matches[slot]);
    if (take == 0) return;
    const Key128 last = to_128(last_sort_key());
    if (threadIdx.x == 0) {
        limit = last;
        limit_bit = 0;
        kept = 0;
    }
    if (n > kBlockTopK) {
        // The lowest and highest real key: bits above their highest difference are common.
        Key128 low = last, high = 0;
        for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) {
            const Key128 key = to_128(region[i]);
            if (key == last) continue;
            low = key < low ? key : low;
            high = key > high ? key : high;
        }
        for (int offset = 16; offset > 0; offset /= 2) {
            const unsigned long long low_hi = __shfl_down_sync(0xffffffffu, static_cast<unsigned long long>(low >> 64), offset);
            const unsigned long long low_lo = __shfl_down_sync(0xffffffffu, static_cast<unsigned long long>(low), offset);
            const unsigned long long high_hi = __shfl_down_sync(0xffffffffu, static_cast<unsigned long long>(high >> 64), offset);
            const unsigned long long high_lo = __shfl_down_sync(0xffffffffu, static_cast<unsigned long long>(high), offset);
            const Key128 other_low = (static_cast<Key128>(low_hi) << 64) | low_lo;
            const Key128 other_high = (static_cast<Key128>(high_hi) << 64) | high_lo;
            low = other_low < low ? other_low : low;
            high = other_high > high ? other_high : high;
        }
        const unsigned warp = threadIdx.x / 32;
        if (threadIdx.x % 32 == 0) {  // warp results in the sort buffers, reduced by thread 0
            his[warp] = static_cast<unsigned long long>(low >> 64);
            los[warp] = static_cast<unsigned long long>(low);
            his[32 + warp] = static_cast<unsigned long long>(high >> 64);
            los[32 + warp] = static_cast<unsigned long long>(high);
        }
        __syncthreads();
        __shared__ Key128 prefix;  // the bucket: keys whose bits from bucket_top up equal prefix
        __shared__ int bucket_top;
        __shared__ uint32_t below;  // keys smaller than the bucket
        __shared__ bool done;
        if (threadIdx.x == 0) {
            Key128 lowest = last, highest = 0;
            for (unsigned w = 0; w < blockDim.x / 32; ++w) {
                const Key128 l = (static_cast<Key128>(his[w]) << 64) | los[w];
                const Key128 h = (static_cast<Key128>(his[32 + w]) << 64) | los[32 + w];
                lowest = l < lowest ? l : lowest;
                highest = h > highest ? h : highest;
            }
            int top = 0;
            for (Key128 differ = lowest ^ highest; differ != 0; differ >>= 1) ++top;
            bucket_top = top;
            prefix = above(lowest, top);
            below = 0;
            done = false;
        }
        __syncthreads();
        while (!done) {
            const int width = min(8, bucket_top);
            const int digit_low = bucket_top - width;
            for (uint32_t i = threadIdx.x; i < 256; i += blockDim.x) histogram[i] = 0;
            __syncthreads();
            for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) {
                const Key128 key = to_128(region[i]);
                if (above(key, bucket_top) != prefix) continue;
                atomicAdd(&histogram[static_cast<uint32_t>(key >> digit_low) & ((1u << width) - 1)], 1u);
            }
            __syncthreads();
            if (threadIdx.x == 0) {
                uint32_t digit = 0, sum = below;
                const uint32_t last_digit = (1u << width) - 1;
                while (digit < last_digit && sum + histogram[digit] < take) sum += histogram[digit++];
                const Key128 bucket = (prefix << width) | digit;
                if (sum + histogram[digit] <= kBlockTopK || digit_low == 0) {
                    limit = bucket;
                    limit_bit = digit_low;
                    done = true;
                } else {
                    prefix = bucket;
                    bucket_top = digit_low;
                    below = sum;
                }
            }
            __syncthreads();
        }
    }
    __syncthreads();
    // Gather the kept keys (all of them for a small region).
    for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) {
        const SortKey key = region[i];
        if (n > kBlockTopK && above(to_128(key), limit_bit) > limit) continue;
        const uint32_t at = atomicAdd(&kept, 1u);
        his[at] = key.hi;
        los[at] = key.lo;
    }
    __syncthreads();
    const uint32_t count = kept;
    uint32_t padded = 1;
    while (padded < count) padded <<= 1;
    for (uint32_t i = count + threadIdx.x; i < padded; i += blockDim.x) {
        his[i] = ~0ull;
        los[i] = ~0ull;
    }
    __syncthreads();
    for (uint32_t size = 2; size <= padded; size <<= 1) {
        for (uint32_t stride = size / 2; stride > 0; stride >>= 1) {
            for (uint32_t i = threadIdx.x; i < padded; i += blockDim.x) {
                const uint32_t j = i ^ stride;
                if (j <= i) continue;
                const bool ascending = (i & size) == 0;
                const bool j_first = his[j] != his[i] ? his[j] < his[i] : los[j] < los[i];
                if (j_first == ascending) {
                    const unsigned long long hi = his[i], lo = los[i];
                    his[i] = his[j];
                    los[i] = los[j];
                    his[j] = hi;
                    los[j] = lo;
                }
            }
            __syncthreads();
        }
    }
    for (uint32_t i = threadIdx.x; i < take; i += blockDim.x) out[out_base[slot] + i] = SortKey{his[i], los[i]};
}

}  // namespace

void launch_block_top_k(const SortKey* keys, const Regions& regions, uint32_t slots, const uint32_t* matches,
                        const uint32_t* out_base, uint32_t k, SortKey* out, cudaStream_t stream) {
    if (slots == 0) return;
    select_top_k<<<slots, 1024, 0, stream>>>(keys, regions, matches, out_base, k, out);
    check_launch("select_top_k");
}

size_t sort_temp_bytes(uint32_t count, int end_bit) {
    size_t bytes = 0;
    check(cub::DeviceRadixSort::SortKeys(nullptr, bytes, static_cast<const SortKey*>(nullptr),
                                         static_cast<SortKey*>(nullptr), count, SortKeyDecomposer{}, 0, end_bit),
          "DeviceRadixSort (size)");
    return bytes;
}

void sort_keys(void* temp, size_t temp_bytes, const SortKey* in, SortKey* out, uint32_t count, int end_bit,
               cudaStream_t stream) {
    if (count == 0) return;
    check(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, in, out, count, SortKeyDecomposer{}, 0, end_bit, stream),
          "DeviceRadixSort");
}

void launch_gather_top(const SortKey* sorted, const uint32_t* matches, uint32_t slots, const uint32_t* out_base,
                       uint32_t k, SortKey* out, cudaStream_t stream) {
    if (slots == 0) return;
    gather_top<<<slots, 256, 0, stream>>>(sorted, matches, out_base, k, out);
    check_launch("gather_top");
}

}  // namespace invidx::cuda
