// The passes of every GPU decoder (gpu_bp128_decode.cu, unit_decoder.cuh) over
// units already in device memory: each pass zeroes `checksum` (the kernels
// add into it), queues launch() on `stream` between the observer's calls
// (devices/gpu_codecs.hpp), then waits for it, so that a kernel that fails
// is named by `what` and the observer's events have completed.
#pragma once

#include <string>

#include "devices/cuda/common/cuda_check.hpp"
#include "devices/gpu_codecs.hpp"
#include "invidx/error.hpp"

namespace invidx::cuda {

// The decoders run on the first GPU.
constexpr int kDecodeDevice = 0;

template <class Launch>
void run_decode_passes(cudaStream_t stream, const GpuDecodePasses& passes, unsigned long long* checksum,
                       const char* what, Launch launch) {
    ensure(passes.count >= 1, std::string(what) + ": a decode needs at least one pass");  // else no checksum
    for (unsigned pass = 0; pass < passes.count; ++pass) {
        check(cudaMemsetAsync(checksum, 0, sizeof(unsigned long long), stream), "cudaMemsetAsync");
        if (passes.observer) passes.observer->pass_begins(stream);
        launch();
        check_launch(what);
        if (passes.observer) passes.observer->pass_ends(stream);
        check(cudaStreamSynchronize(stream), what);
    }
}

}  // namespace invidx::cuda
