#include "bench/gpu_pass_timer.hpp"

#include <algorithm>

#include <cuda_runtime.h>

#include "devices/cuda/common/cuda_check.hpp"

namespace invidx::bench {

namespace {

// Created on the decoding thread, so on the device the decode uses.
cudaEvent_t recorded_event(cudaStream_t stream) {
    cudaEvent_t event = nullptr;
    cuda::check(cudaEventCreate(&event), "cudaEventCreate");
    const cudaError_t status = cudaEventRecord(event, stream);
    if (status != cudaSuccess) cudaEventDestroy(event);
    cuda::check(status, "cudaEventRecord");
    return event;
}

}  // namespace

GpuPassTimer::~GpuPassTimer() {
    for (cudaEvent_t event : starts_) cudaEventDestroy(event);
    for (cudaEvent_t event : stops_) cudaEventDestroy(event);
}

void GpuPassTimer::pass_begins(cudaStream_t stream) { starts_.push_back(recorded_event(stream)); }

void GpuPassTimer::pass_ends(cudaStream_t stream) { stops_.push_back(recorded_event(stream)); }

double GpuPassTimer::median_seconds(size_t warm_up) const {
    std::vector<double> seconds;
    for (size_t pass = warm_up; pass < std::min(starts_.size(), stops_.size()); ++pass) {
        float ms = 0;
        cuda::check(cudaEventElapsedTime(&ms, starts_[pass], stops_[pass]), "cudaEventElapsedTime");
        seconds.push_back(ms * 1e-3);
    }
    if (seconds.empty()) return 0.0;
    std::sort(seconds.begin(), seconds.end());
    return seconds[seconds.size() / 2];
}

}  // namespace invidx::bench
