// Which GPUs parse, from the parse node's "gpus" key (docs/PIPELINE.md):
// absent or "none": none; "auto": every GPU present when the build has CUDA,
// none otherwise; or a list [{"device": "gpu:0", "slots": 2, "max_batch_bytes": B}, ...] whose
// devices must be present (a ConfigError naming the entry's key otherwise:
// there is no silent fallback to the CPU for a GPU named explicitly).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nodes/parse/gpu_parse_backend.hpp"

namespace invidx {

// Several batches in flight on one GPU hide each other's launches and host
// round trips; with the GPU indexer's terms kept on the device six were
// faster than four and eight no faster than six (docs/PERFORMANCE.md,
// "Pipeline defaults").
constexpr unsigned kDefaultGpuParserSlots = 6;

struct GpuParserSpec {
    std::string device;   // "gpu:N"
    int ordinal = 0;
    // Batches in flight on the GPU at once, each with its own host thread,
    // stream, pinned staging and device arrays: several overlap one batch's
    // copies and host work with the others' kernels.
    unsigned slots = kDefaultGpuParserSlots;
    // A batch with more document text than this (one huge record makes a
    // batch larger than memory.batch_bytes) is parsed by the slot's thread
    // on the host, identically: a slot's device memory stays bounded by
    // about 80 bytes per byte of this at most, whatever the input.
    uint64_t max_batch_bytes = uint64_t{64} << 20;
    // Where a GPU indexer runs on the same device: its collections' terms
    // stay on the device (invidx/resident_terms.hpp) instead of coming back
    // to the host and going over again. False: every term comes back.
    bool resident_terms = true;
};

struct GpuParserChoice {
    std::string setting;               // "none", "auto" or "list": what "gpus" said
    std::vector<GpuParserSpec> gpus;   // the GPUs that parse; empty: CPU parsers only
    std::string reason;                // why, in words, for the report and --list-kinds
};

// Reads "gpus" (`value`, null when absent) at JSON pointer `pointer`
// against `backend`'s GPUs.
GpuParserChoice choose_gpu_parsers(const nlohmann::json& value, const std::string& pointer,
                                   const GpuParseBackend& backend);

}  // namespace invidx
