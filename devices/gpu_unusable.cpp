#include "devices/gpu_unusable.hpp"

#include <algorithm>

namespace invidx {

std::string cuda_failure_note(std::string_view cuda_says) {
    return "CUDA cannot use any device on this machine (CUDA says: " + std::string(cuda_says) + ")";
}

std::optional<std::string> gpu_unusable_reason(int ordinal, const std::vector<int>& present, std::string_view none_note) {
    if (std::find(present.begin(), present.end(), ordinal) != present.end()) return std::nullopt;
    if (present.empty()) return "no usable GPU" + (none_note.empty() ? std::string() : ": " + std::string(none_note));
    std::string list;
    for (const int gpu : present) list += (list.empty() ? "gpu:" : ", gpu:") + std::to_string(gpu);
    return "no such GPU: this machine has " + list;
}

std::optional<std::string> gpu_unusable_reason(int ordinal, const GpuInventory& inventory) {
    std::vector<int> present;
    for (const GpuDevice& device : inventory.devices) present.push_back(device.ordinal);
    return gpu_unusable_reason(ordinal, present, inventory.note);
}

}  // namespace invidx
