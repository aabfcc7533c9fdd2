// Which GPUs inflate gzip members for the decompress node, from its "gpus"
// key (docs/PIPELINE.md, "GPU inflate"):
//   absent or "auto"  the GPUs the parse node parses on, where there are
//                     any, the build has CUDA and split_gzip is on; else none
//   "none" or []      none
//   [0, "gpu:1", ...] these GPUs, which must be present (a ConfigError
//                     naming the entry otherwise), with split_gzip on
// Anything else is a ConfigError naming the key.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "devices/gpu_devices.hpp"

namespace invidx {

struct InflateGpuChoice {
    std::string setting;        // "auto", "none" or "list": what "gpus" said
    std::vector<int> ordinals;  // one GPU worker each; empty: the CPU decodes everything
    std::string reason;         // in words, for the report
};

// `value`: "gpus" (null when absent) at JSON pointer `pointer`;
// `inventory`: the GPUs that can inflate (asked only where it matters:
// CUDA takes a moment to answer); `parse_gpus`: the ordinals the parse node
// parses on; `split_gzip`: the node's split_gzip.
InflateGpuChoice choose_inflate_gpus(const nlohmann::json& value, const std::string& pointer,
                                     const std::function<GpuInventory()>& inventory,
                                     const std::vector<int>& parse_gpus, bool split_gzip);

}  // namespace invidx
