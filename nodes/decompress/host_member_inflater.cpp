// MemberBatchInflater on the host, one member after another: the tests'
// stand-in for a GPU (gpu_inflate_backend.hpp, the host reference backend).
#include "nodes/decompress/member_batch_inflater.hpp"

#include <zlib.h>
#if defined(INVIDX_HAVE_LIBDEFLATE)
#include <libdeflate.h>
#endif

#include <algorithm>

#include "invidx/error.hpp"

namespace invidx {
namespace {

class HostMemberInflater final : public MemberBatchInflater {
public:
    HostMemberInflater(const MemberBatchLimits& limits, bool kernel_decoder)
        : limits_(limits),
          kernel_decoder_(kernel_decoder),
          input_(new char[limits.input_bytes]),
          output_(new char[limits.output_bytes]) {
#if defined(INVIDX_HAVE_LIBDEFLATE)
        decompressor_ = libdeflate_alloc_decompressor();
        if (decompressor_ == nullptr) throw Error("cannot start libdeflate");
#endif
    }
    ~HostMemberInflater() override {
#if defined(INVIDX_HAVE_LIBDEFLATE)
        libdeflate_free_decompressor(decompressor_);
#endif
    }
    HostMemberInflater(const HostMemberInflater&) = delete;
    HostMemberInflater& operator=(const HostMemberInflater&) = delete;

    const MemberBatchLimits& limits() const override { return limits_; }
    char* input() override { return input_.get(); }
    const char* output() const override { return output_.get(); }

    std::vector<InflateOutcome> inflate(size_t input_size, const std::vector<InflateMember>& members) override {
        ensure(input_size <= limits_.input_bytes && members.size() <= limits_.members,
               "a member batch larger than its inflater's buffers");
        std::vector<InflateOutcome> outcomes(members.size());
        for (const InflateMember& m : members)
            ensure(m.in_offset + m.in_size <= input_size && m.out_offset + m.out_size <= limits_.output_bytes,
                   "a batch member outside its inflater's buffers");
        if (kernel_decoder_) {
            inflate_members_on_host(input_.get(), members.data(), members.size(), output_.get(), outcomes.data());
            return outcomes;
        }
        for (size_t i = 0; i < members.size(); ++i) {
            const InflateMember& m = members[i];
            outcomes[i].status = inflate_one(input_.get() + m.in_offset, m.in_size, output_.get() + m.out_offset, m.out_size);
        }
        return outcomes;
    }

private:
    InflateStatus inflate_one(const char* in, size_t in_size, char* out, size_t out_size) {
#if defined(INVIDX_HAVE_LIBDEFLATE)
        size_t used = 0;
        size_t produced = 0;
        // libdeflate checks the trailer's CRC-32 and ISIZE against the text.
        const libdeflate_result result =
            libdeflate_gzip_decompress_ex(decompressor_, in, in_size, out, out_size, &used, &produced);
        if (result == LIBDEFLATE_INSUFFICIENT_SPACE) return InflateStatus::output_overflow;
        if (result != LIBDEFLATE_SUCCESS) return InflateStatus::bad_deflate;
        if (used != in_size) return InflateStatus::trailing_bytes;
        if (produced != out_size) return InflateStatus::size_mismatch;
        return InflateStatus::ok;
#else
        z_stream zlib{};
        if (inflateInit2(&zlib, 15 + 16) != Z_OK) throw Error("cannot start zlib");
        zlib.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in));
        zlib.avail_in = static_cast<uInt>(in_size);
        // One byte more than the text should be, to tell a longer text.
        std::vector<char> text(out_size + 1);
        zlib.next_out = reinterpret_cast<Bytef*>(text.data());
        zlib.avail_out = static_cast<uInt>(text.size());
        const int status = ::inflate(&zlib, Z_FINISH);
        const size_t produced = text.size() - zlib.avail_out;
        const uInt left = zlib.avail_in;
        inflateEnd(&zlib);
        if (status == Z_DATA_ERROR) return InflateStatus::bad_deflate;
        if (status != Z_STREAM_END) return produced > out_size ? InflateStatus::output_overflow : InflateStatus::truncated;
        if (left != 0) return InflateStatus::trailing_bytes;
        if (produced != out_size) return produced > out_size ? InflateStatus::output_overflow : InflateStatus::size_mismatch;
        std::copy(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(out_size), out);
        return InflateStatus::ok;
#endif
    }

    MemberBatchLimits limits_;
    const bool kernel_decoder_;
    std::unique_ptr<char[]> input_;
    std::unique_ptr<char[]> output_;
#if defined(INVIDX_HAVE_LIBDEFLATE)
    libdeflate_decompressor* decompressor_ = nullptr;
#endif
};

}  // namespace

MemberBatchLimits member_batch_limits(size_t input_bytes) {
    return MemberBatchLimits{input_bytes, 8 * input_bytes, std::max<size_t>(1, input_bytes / 256)};
}

std::unique_ptr<MemberBatchInflater> make_host_member_inflater(const MemberBatchLimits& limits, bool kernel_decoder) {
    return std::make_unique<HostMemberInflater>(limits, kernel_decoder);
}

}  // namespace invidx
