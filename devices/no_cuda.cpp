#include "devices/gpu_devices.hpp"

namespace invidx {

GpuInventory list_gpus() {
    GpuInventory inventory;
    inventory.note = "invidx was built without CUDA (nvcc was not found when it was configured)";
    return inventory;
}

}  // namespace invidx
