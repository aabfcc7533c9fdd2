// One wording, in every tool, for a GPU that was asked for and cannot be
// used: "--device gpu:0: no usable GPU: CUDA cannot use any device on this
// machine (CUDA says: CUDA driver version is insufficient ...)" rather than
// CUDA's own message, which leaves a user guessing whether invidx, the
// driver or the flag is at fault. A CPU-only build says the same way that
// it was built without CUDA.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "devices/gpu_devices.hpp"

namespace invidx {

// list_gpus()'s note where the CUDA runtime fails (no driver, a driver too
// old, no device node): "CUDA cannot use any device on this machine (CUDA
// says: <cuda_says>)".
std::string cuda_failure_note(std::string_view cuda_says);
// list_gpus()'s note where CUDA works and finds no device.
inline constexpr const char* kNoCudaDeviceNote = "CUDA finds no device on this machine";

// Why GPU `ordinal` cannot be used, to follow "<what was asked>: "; nothing
// where it can. `present`: the ordinals that can; `none_note`: why there are
// none (GpuInventory::note, MachineResources::gpus_note).
//   no GPU at all:      "no usable GPU: <none_note>"
//   not this one:       "no such GPU: this machine has gpu:0, gpu:1"
std::optional<std::string> gpu_unusable_reason(int ordinal, const std::vector<int>& present, std::string_view none_note);
std::optional<std::string> gpu_unusable_reason(int ordinal, const GpuInventory& inventory);

}  // namespace invidx
