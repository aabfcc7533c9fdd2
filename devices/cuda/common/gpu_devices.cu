// The GPUs CUDA sees (devices/gpu_devices.hpp).
#include <cuda_runtime.h>

#include "devices/cuda/common/cuda_event.hpp"
#include "devices/gpu_devices.hpp"
#include "devices/gpu_unusable.hpp"

namespace invidx {

namespace cuda {
thread_local uint64_t this_thread_wait_cpu_ns = 0;
}  // namespace cuda

GpuInventory list_gpus() {
    GpuInventory inventory;
    inventory.built_with_cuda = true;
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        inventory.note = cuda_failure_note(cudaGetErrorString(status));
        return inventory;
    }
    for (int ordinal = 0; ordinal < count; ++ordinal) {
        cudaDeviceProp properties{};
        if (cudaGetDeviceProperties(&properties, ordinal) != cudaSuccess) continue;
        GpuDevice device;
        device.ordinal = ordinal;
        device.name = properties.name;
        device.compute_major = properties.major;
        device.compute_minor = properties.minor;
        device.memory_bytes = properties.totalGlobalMem;
        device.multiprocessors = properties.multiProcessorCount;
        inventory.devices.push_back(device);
    }
    if (inventory.devices.empty()) inventory.note = kNoCudaDeviceNote;
    return inventory;
}

uint64_t gpu_wait_cpu_ns() { return cuda::this_thread_wait_cpu_ns; }

void warm_up_gpu(int ordinal) {
    if (cudaSetDevice(ordinal) == cudaSuccess) cudaFree(nullptr);  // forces the context into being
}

}  // namespace invidx
