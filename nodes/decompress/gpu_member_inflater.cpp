// MemberBatchInflater on a GPU: a GpuInflater's page-locked buffers and
// batches (devices/gpu_inflate.hpp).
#include "nodes/decompress/member_batch_inflater.hpp"

namespace invidx {
namespace {

class GpuMemberInflater final : public MemberBatchInflater {
public:
    GpuMemberInflater(int ordinal, const MemberBatchLimits& limits, size_t resident_outputs)
        : limits_(limits), gpu_(ordinal, limits.input_bytes, limits.output_bytes, limits.members, resident_outputs) {}

    const MemberBatchLimits& limits() const override { return limits_; }
    char* input() override { return gpu_.input(); }
    const char* output() const override { return gpu_.output(); }
    std::vector<InflateOutcome> inflate(size_t input_size, const std::vector<InflateMember>& members) override {
        return gpu_.inflate(input_size, members);
    }
    GpuInflater::Timings last_device_seconds() const override { return gpu_.last_timings(); }
    std::shared_ptr<const char> device_output() const override { return gpu_.resident_output(); }
    int device_ordinal() const override { return gpu_.device_ordinal(); }
    uint64_t resident_batches() const override { return gpu_.resident_batches(); }
    uint64_t resident_misses() const override { return gpu_.resident_misses(); }
    uint64_t resident_device_bytes() const override { return gpu_.resident_device_bytes(); }

private:
    MemberBatchLimits limits_;
    GpuInflater gpu_;
};

}  // namespace

std::unique_ptr<MemberBatchInflater> make_gpu_member_inflater(int ordinal, const MemberBatchLimits& limits,
                                                              size_t resident_outputs) {
    return std::make_unique<GpuMemberInflater>(ordinal, limits, resident_outputs);
}

}  // namespace invidx
