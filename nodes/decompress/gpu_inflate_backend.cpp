#include "nodes/decompress/gpu_inflate_backend.hpp"

#include <mutex>

#include "devices/host_reference_gpus.hpp"

namespace invidx {
namespace {

std::mutex backend_mutex;

std::shared_ptr<const GpuInflateBackend>& current_backend() {
    static std::shared_ptr<const GpuInflateBackend> backend =
        std::make_shared<const GpuInflateBackend>(cuda_gpu_inflate_backend());
    return backend;
}

}  // namespace

std::shared_ptr<const GpuInflateBackend> gpu_inflate_backend() {
    std::lock_guard lock(backend_mutex);
    return current_backend();
}

GpuInflateBackend cuda_gpu_inflate_backend() {
    return GpuInflateBackend{"cuda", list_gpus, make_gpu_member_inflater, make_gpu_piece_decoder};
}

GpuInflateBackend host_reference_gpu_inflate_backend(int gpus) {
    return GpuInflateBackend{
        "host reference (tests)",
        [gpus] { return host_reference_gpus(gpus); },
        [](int, const MemberBatchLimits& limits, size_t) { return make_host_member_inflater(limits); },
        [](int, const PieceBatchLimits& limits) { return make_host_piece_decoder(limits); },
        true};
}

ScopedGpuInflateBackend::ScopedGpuInflateBackend(GpuInflateBackend backend) {
    std::lock_guard lock(backend_mutex);
    previous_ = current_backend();
    current_backend() = std::make_shared<const GpuInflateBackend>(std::move(backend));
}

ScopedGpuInflateBackend::~ScopedGpuInflateBackend() {
    std::lock_guard lock(backend_mutex);
    current_backend() = std::move(previous_);
}

}  // namespace invidx
