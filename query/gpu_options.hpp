// Which GPU a Searcher evaluates on, and how much of its memory the list
// cache may hold. Given when the Searcher is made; a Searcher made without
// them holds no GPU state at all.
#pragma once

#include <cstddef>

namespace invidx {

struct GpuOptions {
    int ordinal = 0;  // as devices/gpu_devices.hpp numbers GPUs ("gpu:N")
    // Lists kept in device memory between queries, least recently used out
    // first (bp128 query layouts compressed, other lists decoded).
    size_t cache_bytes = size_t{1} << 30;
};

}  // namespace invidx
