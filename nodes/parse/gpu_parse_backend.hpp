// Where the parse node's GPU parsers come from: the GPUs a backend offers
// and one batch analyzer per parser slot. The CUDA backend offers the GPUs
// CUDA sees and runs gpu_analyze_batch's kernels; the host reference
// backend offers pretend GPUs whose analyzer is analyze_batch_on_host (the
// same per-document code on the host). The host one is for tests only, so
// that the CPU test suite runs the whole GPU parse path of the pipeline; a
// user cannot name it in a pipeline.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "devices/gpu_analysis.hpp"
#include "devices/gpu_devices.hpp"

namespace invidx {

struct GpuParseBackend {
    std::string name;                                   // "cuda", "host reference (tests)"
    std::function<GpuInventory()> inventory;            // the GPUs a parser may name
    std::function<std::unique_ptr<GpuBatchAnalyzer>(int ordinal)> make_analyzer;
};

// The backend GPU parsers use now: CUDA's, unless a test has put another in place.
std::shared_ptr<const GpuParseBackend> gpu_parse_backend();

// The CUDA backend (in a build without CUDA its inventory is empty and says why).
GpuParseBackend cuda_gpu_parse_backend();

// For tests: `gpus` pretend GPUs, gpu:0 .. gpu:gpus-1, each analyzing on the host.
GpuParseBackend host_reference_gpu_parse_backend(int gpus);

// For tests: `backend` is the one in use while this lives.
class ScopedGpuParseBackend {
public:
    explicit ScopedGpuParseBackend(GpuParseBackend backend);
    ~ScopedGpuParseBackend();
    ScopedGpuParseBackend(const ScopedGpuParseBackend&) = delete;
    ScopedGpuParseBackend& operator=(const ScopedGpuParseBackend&) = delete;

private:
    std::shared_ptr<const GpuParseBackend> previous_;
};

}  // namespace invidx
