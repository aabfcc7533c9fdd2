// Where the decompress node's GPU inflaters come from: the GPUs a backend
// offers and one MemberBatchInflater (and, for stream pieces, one
// PieceBatchDecoder) per GPU worker. The CUDA backend offers the GPUs CUDA
// sees and inflates with GpuInflater and GpuPieceDecoder; the host reference
// backend offers pretend GPUs that do both on the host, for tests only, so
// that the CPU test suite runs the decompress node's whole GPU path. A user
// cannot name it in a pipeline.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "devices/gpu_devices.hpp"
#include "nodes/decompress/member_batch_inflater.hpp"
#include "nodes/decompress/piece_batch_decoder.hpp"

namespace invidx {

struct GpuInflateBackend {
    std::string name;                         // "cuda", "host reference (tests)"
    std::function<GpuInventory()> inventory;  // the GPUs "gpus" may name
    // resident_outputs: device buffers a batch's text may stay in (make_gpu_member_inflater's).
    std::function<std::unique_ptr<MemberBatchInflater>(int ordinal, const MemberBatchLimits& limits,
                                                       size_t resident_outputs)>
        make_inflater;
    // Where GPU workers also decode stream pieces ("gpu_stream_pieces").
    std::function<std::unique_ptr<PieceBatchDecoder>(int ordinal, const PieceBatchLimits& limits)> make_piece_decoder;
    // Whether chunks go to the GPU workers before one of them has made its
    // inflater, and wait for it there. Otherwise (CUDA's) the chunk decoders
    // take every chunk until then (decompress_node.cpp). True for tests
    // whose small inputs must take the GPU path.
    bool chunks_wait_for_set_up = false;
};

// The backend in use now: CUDA's, unless a test has put another in place.
std::shared_ptr<const GpuInflateBackend> gpu_inflate_backend();

// The CUDA backend (in a build without CUDA its inventory is empty and says why).
GpuInflateBackend cuda_gpu_inflate_backend();

// For tests: `gpus` pretend GPUs, gpu:0 .. gpu:gpus-1, each inflating on the
// host; chunks wait for their set-up (chunks_wait_for_set_up).
GpuInflateBackend host_reference_gpu_inflate_backend(int gpus);

// For tests: `backend` is the one in use while this lives.
class ScopedGpuInflateBackend {
public:
    explicit ScopedGpuInflateBackend(GpuInflateBackend backend);
    ~ScopedGpuInflateBackend();
    ScopedGpuInflateBackend(const ScopedGpuInflateBackend&) = delete;
    ScopedGpuInflateBackend& operator=(const ScopedGpuInflateBackend&) = delete;

private:
    std::shared_ptr<const GpuInflateBackend> previous_;
};

}  // namespace invidx
