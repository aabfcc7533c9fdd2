#include "nodes/parse/gpu_parse_backend.hpp"

#include <mutex>

#include "devices/host_reference_gpus.hpp"

namespace invidx {
namespace {

std::mutex backend_mutex;

std::shared_ptr<const GpuParseBackend>& current_backend() {
    static std::shared_ptr<const GpuParseBackend> backend =
        std::make_shared<const GpuParseBackend>(cuda_gpu_parse_backend());
    return backend;
}

class HostReferenceAnalyzer final : public GpuBatchAnalyzer {
public:
    GpuAnalysisResult analyze(const GpuAnalysisInput& input) override { return analyze_batch_on_host(input); }
    GpuAnalyzerMemory memory() const override { return {}; }
};

}  // namespace

std::shared_ptr<const GpuParseBackend> gpu_parse_backend() {
    std::lock_guard lock(backend_mutex);
    return current_backend();
}

GpuParseBackend cuda_gpu_parse_backend() {
    return GpuParseBackend{"cuda", list_gpus, create_gpu_batch_analyzer};
}

GpuParseBackend host_reference_gpu_parse_backend(int gpus) {
    return GpuParseBackend{
        "host reference (tests)",
        [gpus] { return host_reference_gpus(gpus); },
        [](int) -> std::unique_ptr<GpuBatchAnalyzer> { return std::make_unique<HostReferenceAnalyzer>(); }};
}

ScopedGpuParseBackend::ScopedGpuParseBackend(GpuParseBackend backend) {
    std::lock_guard lock(backend_mutex);
    previous_ = current_backend();
    current_backend() = std::make_shared<const GpuParseBackend>(std::move(backend));
}

ScopedGpuParseBackend::~ScopedGpuParseBackend() {
    std::lock_guard lock(backend_mutex);
    current_backend() = std::move(previous_);
}

}  // namespace invidx
