// bp128 groups decoded on the GPU for the codec benchmark
// (devices/gpu_codecs.hpp): one thread block per full group of 128
// (bp128_decode.cuh), the groups copied to the device once and decoded in
// passes (decode_passes.hpp).
#include <string>
#include <vector>

#include "devices/cuda/codecs/bp128_decode.cuh"
#include "devices/cuda/codecs/decode_passes.hpp"
#include "devices/cuda/common/cuda_check.hpp"
#include "devices/cuda/common/device_array.hpp"
#include "devices/gpu_codecs.hpp"

namespace invidx {
namespace {

using cuda::check;

constexpr int kGroupValues = cuda::kBp128GroupValues;

// One block per group (devices/cuda/codecs/bp128_decode.cuh); the last thread adds
// the group's last value to the checksum.
template <bool kDocids>
__global__ void __launch_bounds__(kGroupValues)
    decode_bp128(const unsigned char* bytes, const uint64_t* group_offsets, const uint32_t* first_docids,
                 unsigned long long* checksum) {
    __shared__ cuda::Bp128Scan::TempStorage scan_storage;
    const uint32_t value = cuda::bp128_decode_group<kDocids>(bytes + group_offsets[blockIdx.x],
                                                             kDocids ? first_docids[blockIdx.x] : 0, scan_storage);
    if (threadIdx.x == kGroupValues - 1) atomicAdd(checksum, static_cast<unsigned long long>(value));
}

}  // namespace

GpuDecodeResult gpu_decode_bp128(const std::string& bytes, const std::vector<uint64_t>& group_offsets,
                                 const std::vector<uint32_t>& first_docids, bool docids, GpuDecodePasses passes) {
    GpuDecodeResult out;
    out.device = cuda::use_device(cuda::kDecodeDevice);
    const size_t groups = group_offsets.size();
    out.integers = groups * kGroupValues;
    if (groups == 0) return out;

    cudaStream_t stream = nullptr;
    check(cudaStreamCreate(&stream), "cudaStreamCreate");
    cuda::MemoryCounter memory;
    cuda::DeviceArray<unsigned char> device_bytes(memory);
    cuda::DeviceArray<uint64_t> device_offsets(memory);
    cuda::DeviceArray<uint32_t> device_first(memory);
    cuda::DeviceArray<unsigned long long> device_checksum(memory);
    device_bytes.reserve(bytes.size() + 64, 0, stream);  // slack: a 0-bit group still reads 16 bytes
    device_offsets.reserve(groups, 0, stream);
    device_first.reserve(groups, 0, stream);
    device_checksum.reserve(1, 0, stream);
    check(cudaMemsetAsync(device_bytes.data(), 0, bytes.size() + 64, stream), "cudaMemsetAsync");
    check(cudaMemcpyAsync(device_bytes.data(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice, stream), "H2D");
    check(cudaMemcpyAsync(device_offsets.data(), group_offsets.data(), groups * sizeof(uint64_t),
                          cudaMemcpyHostToDevice, stream),
          "H2D");
    if (docids) {
        check(cudaMemcpyAsync(device_first.data(), first_docids.data(), groups * sizeof(uint32_t),
                              cudaMemcpyHostToDevice, stream),
              "H2D");
    }
    cuda::run_decode_passes(stream, passes, device_checksum.data(), "decode_bp128", [&] {
        if (docids) {
            decode_bp128<true><<<static_cast<unsigned>(groups), kGroupValues, 0, stream>>>(
                device_bytes.data(), device_offsets.data(), device_first.data(), device_checksum.data());
        } else {
            decode_bp128<false><<<static_cast<unsigned>(groups), kGroupValues, 0, stream>>>(
                device_bytes.data(), device_offsets.data(), device_first.data(), device_checksum.data());
        }
    });
    unsigned long long checksum = 0;
    check(cudaMemcpy(&checksum, device_checksum.data(), sizeof checksum, cudaMemcpyDeviceToHost), "D2H");
    out.checksum = checksum;
    device_bytes.release();
    device_offsets.release();
    device_first.release();
    device_checksum.release();
    cudaStreamDestroy(stream);
    return out;
}

}  // namespace invidx
