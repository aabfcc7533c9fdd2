// MemberBatchInflater on the host, one member after another: the tests'
// stand-in for a GPU (gpu_inflate_backend.hpp, the host reference backend).
#include "nodes/decompress/member_batch_inflater.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "invidx/error.hpp"
#include "nodes/decompress/whole_member.hpp"

namespace invidx {
namespace {

class HostMemberInflater final : public MemberBatchInflater {
public:
    HostMemberInflater(const MemberBatchLimits& limits, bool kernel_decoder, int pretend_device)
        : limits_(limits),
          kernel_decoder_(kernel_decoder),
          pretend_device_(pretend_device),
          input_(new char[limits.input_bytes]),
          output_(new char[limits.output_bytes]) {}
    HostMemberInflater(const HostMemberInflater&) = delete;
    HostMemberInflater& operator=(const HostMemberInflater&) = delete;

    const MemberBatchLimits& limits() const override { return limits_; }
    char* input() override { return input_.get(); }
    const char* output() const override { return output_.get(); }
    std::shared_ptr<const char> device_output() const override { return pretend_output_; }
    int device_ordinal() const override { return pretend_device_; }

    std::vector<InflateOutcome> inflate(size_t input_size, const std::vector<InflateMember>& members) override {
        ensure(input_size <= limits_.input_bytes && members.size() <= limits_.members,
               "a member batch larger than its inflater's buffers");
        std::vector<InflateOutcome> outcomes(members.size());
        for (const InflateMember& m : members)
            ensure(m.in_offset + m.in_size <= input_size && m.out_offset + m.out_size <= limits_.output_bytes,
                   "a batch member outside its inflater's buffers");
        if (kernel_decoder_) {
            inflate_members_on_host(input_.get(), members.data(), members.size(), output_.get(), outcomes.data());
        } else {
            for (size_t i = 0; i < members.size(); ++i) {
                const InflateMember& m = members[i];
                outcomes[i].status =
                    inflate_whole_member(input_.get() + m.in_offset, m.in_size, output_.get() + m.out_offset, m.out_size);
            }
        }
        pretend_output_.reset();
        if (pretend_device_ >= 0) {
            uint64_t end = 0;
            for (const InflateMember& m : members) end = std::max<uint64_t>(end, m.out_offset + m.out_size);
            auto copy = std::make_shared<const std::string>(output_.get(), end);
            pretend_output_ = std::shared_ptr<const char>(copy, copy->data());
        }
        return outcomes;
    }

private:
    MemberBatchLimits limits_;
    const bool kernel_decoder_;
    const int pretend_device_;
    std::shared_ptr<const char> pretend_output_;
    std::unique_ptr<char[]> input_;
    std::unique_ptr<char[]> output_;
};

}  // namespace

MemberBatchLimits member_batch_limits(size_t input_bytes) {
    return MemberBatchLimits{input_bytes, 8 * input_bytes, std::max<size_t>(1, input_bytes / 256)};
}

std::unique_ptr<MemberBatchInflater> make_host_member_inflater(const MemberBatchLimits& limits, bool kernel_decoder,
                                                               int pretend_device) {
    return std::make_unique<HostMemberInflater>(limits, kernel_decoder, pretend_device);
}

}  // namespace invidx
