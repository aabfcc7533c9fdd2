// A large host-to-host copy split over the threads oneTBB may use: one
// thread's copy is slower than a PCIe link takes from pinned staging
// buffers, so a single copier would starve it
// (devices/cuda/index/gpu_layout_weights.cu).
#pragma once

#include <cstdint>

namespace invidx {

void parallel_copy(void* to, const void* from, uint64_t bytes);

}  // namespace invidx
