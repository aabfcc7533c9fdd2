// The GPUs a host reference backend pretends to have: tests swap a backend
// that runs the device's work on the host (the parse, inflate and weight
// nodes' "host reference (tests)") and still need an inventory to choose from.
#pragma once

#include <cstdint>

#include "devices/gpu_devices.hpp"

namespace invidx {

// `gpus` devices named "host reference" (ordinals 0 .. gpus-1) with
// `memory_bytes` each, as if built with CUDA; with none, the note says why.
inline GpuInventory host_reference_gpus(int gpus, uint64_t memory_bytes = 0) {
    GpuInventory inventory;
    inventory.built_with_cuda = true;
    for (int ordinal = 0; ordinal < gpus; ++ordinal)
        inventory.devices.push_back(GpuDevice{ordinal, "host reference", 0, 0, memory_bytes, 0});
    if (gpus == 0) inventory.note = "no CUDA device present (host reference backend with no GPUs)";
    return inventory;
}

}  // namespace invidx
