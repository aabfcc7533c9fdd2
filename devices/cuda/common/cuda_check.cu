#include "devices/cuda/common/cuda_check.hpp"

#include "devices/gpu_devices.hpp"
#include "devices/gpu_unusable.hpp"
#include "invidx/error.hpp"

namespace invidx::cuda {

namespace {

// "CUDA: <message>": when there is no device to name (no driver, no GPU).
[[noreturn]] void fail_without_device(const std::string& message) { throw Error("CUDA: " + message); }

}  // namespace

std::string device_label(int device) {
    std::string label = "gpu:" + std::to_string(device);
    cudaDeviceProp properties{};
    if (cudaGetDeviceProperties(&properties, device) == cudaSuccess) {
        label += std::string(" (") + properties.name + ")";
    } else {
        cudaGetLastError();  // this lookup's failure must not surface at the next check_launch
    }
    return label;
}

void fail_on(int device, const std::string& message) { throw Error(device_label(device) + ": " + message); }

void fail(const std::string& message) {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) {
        cudaGetLastError();
        fail_without_device(message);
    }
    fail_on(device, message);
}

std::string use_device(int device) {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || device < 0 || device >= count) {
        cudaGetLastError();  // this failure must not surface at the next check
        // The wording every tool gives for a GPU it cannot use (devices/gpu_unusable.hpp).
        const GpuInventory inventory = list_gpus();
        const std::optional<std::string> reason = gpu_unusable_reason(device, inventory);
        throw Error("gpu:" + std::to_string(device) + ": " +
                    reason.value_or(cuda_failure_note(cudaGetErrorString(status))));
    }
    check(cudaSetDevice(device), "cudaSetDevice");
    cudaDeviceProp properties{};
    check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
    return properties.name;
}

}  // namespace invidx::cuda
