// The codec benchmark's timing, shared by every GPU decoder (gpu_codecs.cu,
// unit_decoder.cuh): one untimed warm-up pass, then `repetitions` passes
// timed with CUDA events on `stream`; each pass first zeroes `checksum` (the
// kernels add into it). Returns the median pass in seconds.
#pragma once

#include <algorithm>
#include <vector>

#include "devices/cuda/common/cuda_check.hpp"

namespace invidx::cuda {

template <class Launch>
double median_pass_seconds(cudaStream_t stream, unsigned repetitions, unsigned long long* checksum, const char* what,
                           Launch launch) {
    struct Events {
        cudaEvent_t start = nullptr, stop = nullptr;
        Events() {
            check(cudaEventCreate(&start), "cudaEventCreate");
            check(cudaEventCreate(&stop), "cudaEventCreate");
        }
        ~Events() {
            cudaEventDestroy(start);
            cudaEventDestroy(stop);
        }
    } events;
    std::vector<double> seconds;
    for (unsigned r = 0; r <= repetitions; ++r) {
        check(cudaMemsetAsync(checksum, 0, sizeof(unsigned long long), stream), "cudaMemsetAsync");
        check(cudaEventRecord(events.start, stream), "cudaEventRecord");
        launch();
        check_launch(what);
        check(cudaEventRecord(events.stop, stream), "cudaEventRecord");
        check(cudaEventSynchronize(events.stop), what);
        float ms = 0;
        check(cudaEventElapsedTime(&ms, events.start, events.stop), "cudaEventElapsedTime");
        if (r > 0) seconds.push_back(ms * 1e-3);
    }
    if (seconds.empty()) return 0.0;
    std::sort(seconds.begin(), seconds.end());
    return seconds[seconds.size() / 2];
}

}  // namespace invidx::cuda
