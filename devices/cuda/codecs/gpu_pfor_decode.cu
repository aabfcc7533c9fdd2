// PForDelta decoded on the GPU as Ding et al. do it (WWW 2009, §6.2), on
// the bytes codecs::PForDelta writes (store/codecs/pfor.hpp). A unit
// holds up to 7 levels, stored one after the other in this order: the values
// (0); the high parts of their exceptions (1), with that array's own high
// parts (2) and position gaps (3); the position gaps of the exceptions (4),
// with its high parts (5) and position gaps (6). One thread reads the few
// header bytes; then every slot of every level is unpacked by its own
// thread, and the exceptions are patched from the deepest level up, their
// positions given by a prefix sum of the position gaps.
#include "devices/cuda/codecs/packed_slots.cuh"
#include "devices/cuda/codecs/unit_decoder.cuh"

namespace invidx {
namespace {

using namespace cuda;

constexpr unsigned kLevels = 7;
constexpr unsigned kNoLevel = kLevels;
constexpr uint8_t kHasExceptions = 0x80;  // in a level's first byte, beside b

// Where each level's exception arrays are, and how deep it is (a level at
// depth 2, the third, has no exceptions).
__constant__ unsigned kHighLevel[kLevels] = {1, 2, kNoLevel, kNoLevel, 5, kNoLevel, kNoLevel};
__constant__ unsigned kGapLevel[kLevels] = {4, 3, kNoLevel, kNoLevel, 6, kNoLevel, kNoLevel};
__constant__ unsigned kDepth[kLevels] = {0, 1, 2, 2, 1, 2, 2};

// No member initializers: it lives in shared memory (read_levels zeroes it).
struct Level {
    uint32_t count;       // values; 0: the level is not there
    uint32_t b;
    uint32_t exceptions;
    uint64_t slots;       // byte offset of its slots in the unit's bytes
    uint32_t scratch_at;  // levels 1-6: where their values go in the unit's scratch
};

// Reads the headers of a unit's levels in [at, end), checking what the CPU
// decoder checks; false if the bytes are not one encoding of n values. The
// exception arrays must fit in n values of scratch: the encoder's do (at
// most 10% of the values are exceptions, 1% at the next level).
__device__ bool read_levels(const unsigned char* bytes, uint64_t at, uint64_t end, uint32_t n, Level* levels) {
    for (unsigned k = 0; k < kLevels; ++k) levels[k] = Level{};
    levels[0].count = n;
    uint64_t scratch_used = 0;
    for (unsigned k = 0; k < kLevels; ++k) {
        Level& level = levels[k];
        if (level.count == 0) continue;
        if (k > 0) {
            level.scratch_at = static_cast<uint32_t>(scratch_used);
            scratch_used += level.count;
            if (scratch_used > n) return false;
        }
        if (at >= end) return false;
        const uint8_t header = bytes[at++];
        level.b = header & ~kHasExceptions;
        if (level.b > 32) return false;
        if (header & kHasExceptions) {
            uint64_t exceptions = 0;  // variable-byte: 7 bits a byte, high bit on the last
            for (unsigned shift = 0;; shift += 7) {
                if (shift >= 64 || at >= end) return false;
                const uint8_t byte = bytes[at++];
                exceptions |= static_cast<uint64_t>(byte & 127) << shift;
                if (byte & 128) break;
            }
            if (exceptions == 0 || exceptions > level.count) return false;
            if (level.b == 32 || kDepth[k] == 2) return false;
            level.exceptions = static_cast<uint32_t>(exceptions);
            levels[kHighLevel[k]].count = level.exceptions;
            levels[kGapLevel[k]].count = level.exceptions;
        }
        level.slots = at;
        const uint64_t slot_bytes = packed_slot_bytes(level.count, level.b);
        if (end - at < slot_bytes) return false;
        at += slot_bytes;
    }
    return at == end;
}

// Adds level k's exceptions to its values `target`: exception e's high part
// goes to position (sum of the first e + 1 gaps + 1) - 1, a prefix sum.
__device__ void patch_exceptions(const Level* levels, unsigned k, uint32_t* target, const uint32_t* scratch,
                                 typename CarriedScan<unsigned long long>::Scan::TempStorage& storage, int* error) {
    const Level level = levels[k];
    if (level.exceptions == 0) return;
    const uint32_t* high_parts = scratch + levels[kHighLevel[k]].scratch_at;
    const uint32_t* gaps = scratch + levels[kGapLevel[k]].scratch_at;
    const uint32_t max_high = 0xFFFFFFFFu >> level.b;
    CarriedScan<unsigned long long> scan{storage};  // 64 bits: damaged gaps cannot wrap around
    for (uint32_t base = 0; base < level.exceptions; base += kUnitThreads) {
        const uint32_t e = base + threadIdx.x;
        const bool mine = e < level.exceptions;
        const unsigned long long position = scan.inclusive(mine ? gaps[e] + 1ull : 0) - 1;
        if (!mine) continue;
        if (position >= level.count || high_parts[e] > max_high) {
            *error = 1;
            continue;
        }
        target[position] |= high_parts[e] << level.b;
    }
}

template <bool kDocids>
__global__ void __launch_bounds__(kUnitThreads) decode_pfor(DeviceUnits units) {
    __shared__ unsigned char staged[kStagedBytes];
    __shared__ uint32_t shared_values[kSharedValues];
    __shared__ uint32_t shared_scratch[kSharedValues];
    __shared__ Level levels[kLevels];
    __shared__ bool readable;
    __shared__ typename CarriedScan<uint32_t>::Scan::TempStorage docid_scan;
    __shared__ typename CarriedScan<unsigned long long>::Scan::TempStorage position_scan;

    const UnitPlace unit = unit_place(units, blockIdx.x);
    const unsigned char* bytes = unit_bytes(units, unit, staged);
    if (threadIdx.x == 0) readable = read_levels(bytes, 0, unit.end - unit.begin, unit.count, levels);
    __syncthreads();
    if (!readable) {
        if (threadIdx.x == 0) *units.error = 1;
        return;
    }
    const bool in_shared = unit.count <= kSharedValues;
    uint32_t* values = in_shared ? shared_values : units.values + unit.first_value;
    uint32_t* scratch = in_shared ? shared_scratch : units.scratch + unit.first_value;

    for (unsigned k = 0; k < kLevels; ++k) {
        const Level level = levels[k];
        uint32_t* into = k == 0 ? values : scratch + level.scratch_at;
        const unsigned char* slots = bytes + level.slots;
        for (uint32_t i = threadIdx.x; i < level.count; i += kUnitThreads) {
            into[i] = packed_slot(slots, level.count, level.b, i);
        }
    }
    __syncthreads();
    if (levels[0].exceptions > 0) {
        // The exception arrays get their own exceptions first, then the values theirs.
        patch_exceptions(levels, 1, scratch + levels[1].scratch_at, scratch, position_scan, units.error);
        patch_exceptions(levels, 4, scratch + levels[4].scratch_at, scratch, position_scan, units.error);
        __syncthreads();
        patch_exceptions(levels, 0, values, scratch, position_scan, units.error);
        __syncthreads();
    }
    finish_unit<kDocids>(values, units.values + unit.first_value, unit.count,
                         kDocids ? units.first_docids[blockIdx.x] : 0, docid_scan, units.checksum);
}

}  // namespace

GpuDecodeResult gpu_decode_pfor(const GpuEncodedUnits& units, bool docids, std::vector<uint32_t>* values,
                                GpuDecodePasses passes) {
    auto launch = [](const DeviceUnits& device_units, unsigned count, bool with_docids, cudaStream_t stream) {
        if (with_docids) {
            decode_pfor<true><<<count, kUnitThreads, 0, stream>>>(device_units);
        } else {
            decode_pfor<false><<<count, kUnitThreads, 0, stream>>>(device_units);
        }
    };
    return decode_units("pfor", units, docids, values, passes, launch);
}

}  // namespace invidx
