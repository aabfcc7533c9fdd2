// Which GPUs parse, from the parse node's "gpus" key (docs/PIPELINE.md):
// absent or "none": none; "auto": every GPU present when the build has CUDA,
// none otherwise; or a list [{"device": "gpu:0", "slots": 2}, ...] whose
// devices must be present (a ConfigError naming the entry's key otherwise:
// there is no silent fallback to the CPU for a GPU named explicitly).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nodes/parse/gpu_parse_backend.hpp"

namespace invidx {

struct GpuParserSpec {
    std::string device;   // "gpu:N"
    int ordinal = 0;
    // Batches in flight on the GPU at once, each with its own host thread,
    // stream, pinned staging and device arrays: two overlap one batch's
    // copies and host work with the other's kernels.
    unsigned slots = 2;
};

struct GpuParserChoice {
    std::string setting;               // "none", "auto" or "list": what "gpus" said
    std::vector<GpuParserSpec> gpus;   // the GPUs that parse; empty: CPU parsers only
    std::string reason;                // why, in words, for the report and --list-kinds
};

constexpr unsigned kDefaultGpuParserSlots = 2;

// Reads "gpus" (`value`, null when absent) at JSON pointer `pointer`
// against `backend`'s GPUs.
GpuParserChoice choose_gpu_parsers(const nlohmann::json& value, const std::string& pointer,
                                   const GpuParseBackend& backend);

}  // namespace invidx
