// A large host-to-host copy split over the threads oneTBB may use: one
// thread moves about 10 GB/s, too slow to feed a PCIe link through pinned
// staging buffers (devices/cuda/index/gpu_layout_weights.cu).
#pragma once

#include <cstdint>

namespace invidx {

void parallel_copy(void* to, const void* from, uint64_t bytes);

}  // namespace invidx
