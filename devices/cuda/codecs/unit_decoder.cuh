// What the PForDelta and Rice decoders share (gpu_pfor_decode.cu,
// gpu_rice_decode.cu): one thread block per unit (a block of a list or a
// whole list); a unit of up to kSharedValues values is decoded in shared
// memory, a longer one in place in global memory, in chunks of kUnitThreads
// with the prefix sums carried from chunk to chunk; the docid prefix sum and the
// checksum at the end. And the host side: the units copied to the device
// once, then decoded in passes (decode_passes.hpp).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <cub/block/block_scan.cuh>

#include "devices/cuda/common/cuda_check.hpp"
#include "devices/cuda/common/device_array.hpp"
#include "devices/cuda/codecs/decode_passes.hpp"
#include "devices/gpu_codecs.hpp"

namespace invidx::cuda {

// A unit's decode is a chain of short steps, each waiting on memory or on
// the block: the more units in flight on an SM, the better. 64 threads (two
// values each of a block of 128) let an SM hold 32 blocks, its most.
constexpr unsigned kUnitThreads = 64;
// Shared memory per block: two arrays of this many values (4 KiB) and the
// staged bytes (1 KiB), so 32 blocks still fit on an SM.
constexpr uint32_t kSharedValues = 512;
// A unit of up to this many bytes (nearly every block of 128 values) is
// first copied to shared memory by the whole block, in one round trip: its
// headers are then read by one thread without a global-memory wait per byte.
constexpr uint32_t kStagedBytes = 1024;

// The units in device memory, as a kernel sees them.
struct DeviceUnits {
    const unsigned char* bytes = nullptr;
    const uint64_t* byte_ends = nullptr;
    const uint64_t* value_starts = nullptr;  // units + 1: unit u's values are [value_starts[u], value_starts[u + 1])
    const uint32_t* first_docids = nullptr;
    uint32_t* values = nullptr;   // decoded, back to back
    uint32_t* scratch = nullptr;  // as many: a long unit's working arrays
    unsigned long long* checksum = nullptr;
    int* error = nullptr;  // set when a unit's bytes are not an encoding
};

// Inclusive or exclusive prefix sum over the block's threads, carried from
// one chunk of kUnitThreads values to the next. Every thread must call it
// (it waits for the block); `carry` is then the sum so far, the same in
// every thread.
template <class T>
struct CarriedScan {
    using Scan = cub::BlockScan<T, kUnitThreads>;
    typename Scan::TempStorage& storage;
    T carry = 0;

    __device__ T inclusive(T x) {
        T sum, total;
        Scan(storage).InclusiveSum(x, sum, total);
        __syncthreads();  // the storage is used again by the next chunk
        sum += carry;
        carry += total;
        return sum;
    }
    __device__ T exclusive(T x) {
        T sum, total;
        Scan(storage).ExclusiveSum(x, sum, total);
        __syncthreads();
        sum += carry;
        carry += total;
        return sum;
    }
};

// The end of every unit's decode, after a __syncthreads: with docids, the
// gaps (stored minus one) become docids counted from first_docid, as
// codecs::gaps_to_docids does (modulo 2^32); the values go to `out` in global
// memory; the last one goes into the checksum.
template <bool kDocids>
__device__ void finish_unit(const uint32_t* work, uint32_t* out, uint32_t n, uint32_t first_docid,
                            typename CarriedScan<uint32_t>::Scan::TempStorage& storage,
                            unsigned long long* checksum) {
    CarriedScan<uint32_t> scan{storage};
    for (uint32_t base = 0; base < n; base += kUnitThreads) {
        const uint32_t i = base + threadIdx.x;
        uint32_t value = i < n ? work[i] : 0;
        if constexpr (kDocids) value = first_docid - 1 + scan.inclusive(i < n ? value + 1 : 0);
        if (i < n) out[i] = value;
        if (i + 1 == n) atomicAdd(checksum, static_cast<unsigned long long>(value));
    }
}

// Where a unit sits, read by every thread of its block.
struct UnitPlace {
    uint64_t begin = 0;        // its bytes: [begin, end)
    uint64_t end = 0;
    uint64_t first_value = 0;  // index of its first value
    uint32_t count = 0;
};

__device__ inline UnitPlace unit_place(const DeviceUnits& units, uint32_t u) {
    UnitPlace place;
    place.begin = u == 0 ? 0 : units.byte_ends[u - 1];
    place.end = units.byte_ends[u];
    place.first_value = units.value_starts[u];
    place.count = static_cast<uint32_t>(units.value_starts[u + 1] - place.first_value);
    return place;
}

// The unit's bytes, [0, end - begin): staged in shared memory when they fit
// (every thread calls this; it waits for the block), else in place.
__device__ inline const unsigned char* unit_bytes(const DeviceUnits& units, const UnitPlace& unit,
                                                  unsigned char* staged) {
    const unsigned char* bytes = units.bytes + unit.begin;
    const uint64_t size = unit.end - unit.begin;
    if (size > kStagedBytes) return bytes;
    for (uint32_t i = threadIdx.x; i < size; i += kUnitThreads) staged[i] = bytes[i];
    __syncthreads();
    return staged;
}

// Host: checks the units' shape, copies them to the device, runs the
// passes of launch(device_units, unit_count, docids, stream), and returns
// the checksum and, if asked, the values. `codec` names the codec in errors.
template <class Launch>
GpuDecodeResult decode_units(const char* codec, const GpuEncodedUnits& units, bool docids,
                             std::vector<uint32_t>* values, const GpuDecodePasses& passes, Launch&& launch) {
    const std::string name = std::string(codec) + " decode: ";
    const size_t count = units.byte_ends.size();
    if (units.value_counts.size() != count || (docids && units.first_docids.size() != count)) {
        fail_on(kDecodeDevice, name + "byte_ends, value_counts and first_docids differ in length");
    }
    std::vector<uint64_t> value_starts(count + 1, 0);
    uint64_t previous_end = 0;
    for (size_t u = 0; u < count; ++u) {
        if (units.value_counts[u] == 0) fail_on(kDecodeDevice, name + "a unit of no values");
        if (units.byte_ends[u] < previous_end || units.byte_ends[u] > units.bytes.size()) {
            fail_on(kDecodeDevice, name + "byte_ends out of order or past the bytes");
        }
        previous_end = units.byte_ends[u];
        value_starts[u + 1] = value_starts[u] + units.value_counts[u];
    }
    if (count > 0x7FFFFFFFu) fail_on(kDecodeDevice, name + "more units than one launch takes");

    GpuDecodeResult out;
    out.device = cuda::use_device(kDecodeDevice);
    out.integers = value_starts[count];
    if (values) values->assign(out.integers, 0);
    if (count == 0) return out;

    cudaStream_t stream = nullptr;
    check(cudaStreamCreate(&stream), "cudaStreamCreate");
    MemoryCounter memory;
    DeviceArray<unsigned char> device_bytes(memory);
    DeviceArray<uint64_t> device_ends(memory), device_starts(memory);
    DeviceArray<uint32_t> device_first(memory), device_values(memory), device_scratch(memory);
    DeviceArray<unsigned long long> device_checksum(memory);
    DeviceArray<int> device_error(memory);
    device_bytes.reserve(units.bytes.size() + 64, 0, stream);
    device_ends.reserve(count, 0, stream);
    device_starts.reserve(count + 1, 0, stream);
    device_first.reserve(count, 0, stream);
    device_values.reserve(out.integers, 0, stream);
    device_scratch.reserve(out.integers, 0, stream);
    device_checksum.reserve(1, 0, stream);
    device_error.reserve(1, 0, stream);
    check(cudaMemsetAsync(device_bytes.data(), 0, units.bytes.size() + 64, stream), "cudaMemsetAsync");
    check(cudaMemcpyAsync(device_bytes.data(), units.bytes.data(), units.bytes.size(), cudaMemcpyHostToDevice, stream),
          "H2D");
    check(cudaMemcpyAsync(device_ends.data(), units.byte_ends.data(), count * sizeof(uint64_t), cudaMemcpyHostToDevice,
                          stream),
          "H2D");
    check(cudaMemcpyAsync(device_starts.data(), value_starts.data(), (count + 1) * sizeof(uint64_t),
                          cudaMemcpyHostToDevice, stream),
          "H2D");
    if (docids) {
        check(cudaMemcpyAsync(device_first.data(), units.first_docids.data(), count * sizeof(uint32_t),
                              cudaMemcpyHostToDevice, stream),
              "H2D");
    }
    check(cudaMemsetAsync(device_error.data(), 0, sizeof(int), stream), "cudaMemsetAsync");
    DeviceUnits device_units;
    device_units.bytes = device_bytes.data();
    device_units.byte_ends = device_ends.data();
    device_units.value_starts = device_starts.data();
    device_units.first_docids = device_first.data();
    device_units.values = device_values.data();
    device_units.scratch = device_scratch.data();
    device_units.checksum = device_checksum.data();
    device_units.error = device_error.data();

    run_decode_passes(stream, passes, device_checksum.data(), codec, [&] {
        launch(device_units, static_cast<unsigned>(count), docids, stream);
    });
    unsigned long long checksum = 0;
    int error = 0;
    check(cudaMemcpy(&checksum, device_checksum.data(), sizeof checksum, cudaMemcpyDeviceToHost), "D2H");
    check(cudaMemcpy(&error, device_error.data(), sizeof error, cudaMemcpyDeviceToHost), "D2H");
    if (values && error == 0) {
        check(cudaMemcpy(values->data(), device_values.data(), out.integers * sizeof(uint32_t), cudaMemcpyDeviceToHost),
              "D2H");
    }
    for (auto* array : {&device_values, &device_scratch, &device_first}) array->release();
    device_bytes.release();
    device_ends.release();
    device_starts.release();
    device_checksum.release();
    device_error.release();
    cudaStreamDestroy(stream);
    if (error != 0) fail_on(kDecodeDevice, name + "the bytes are not an encoding of the given counts");
    out.checksum = checksum;
    return out;
}

}  // namespace invidx::cuda
