// The codec benchmark's GPU timing: CUDA events recorded on the decode's
// stream around each pass (devices/gpu_codecs.hpp), so a pass's time is the
// device's, without the host's launch and wait. Built only with CUDA
// (bench/gpu_pass_timer.cu); the header needs no CUDA.
#pragma once

#include <cstddef>
#include <vector>

#include "devices/gpu_codecs.hpp"

struct CUevent_st;  // cudaEvent_t is CUevent_st*

namespace invidx::bench {

class GpuPassTimer final : public GpuPassObserver {
public:
    GpuPassTimer() = default;
    GpuPassTimer(const GpuPassTimer&) = delete;
    GpuPassTimer& operator=(const GpuPassTimer&) = delete;
    ~GpuPassTimer() override;

    void pass_begins(CUstream_st* stream) override;
    void pass_ends(CUstream_st* stream) override;

    // The median pass in seconds, the first `warm_up` passes left out; 0
    // when none is left. Read after the decode has returned.
    double median_seconds(size_t warm_up) const;

private:
    std::vector<CUevent_st*> starts_, stops_;  // one of each per pass
};

}  // namespace invidx::bench
