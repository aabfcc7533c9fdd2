// inflate_members_on_host and inflate_status_name (devices/gpu_inflate.hpp):
// the GPU kernel's decoder (deflate_member_decoder.hpp) run on the calling
// thread, in every build, as the kernel's reference.
#include <memory>

#include "devices/gpu_inflate.hpp"
#include "devices/inflate/deflate_member_decoder.hpp"

namespace invidx {

namespace {

constexpr inflate::Crc32Tables kCrc32Tables = inflate::make_crc32_tables();

}  // namespace

const char* inflate_status_name(InflateStatus status) {
    switch (status) {
        case InflateStatus::ok: return "ok";
        case InflateStatus::bad_header: return "bad_header";
        case InflateStatus::bad_deflate: return "bad_deflate";
        case InflateStatus::truncated: return "truncated";
        case InflateStatus::trailing_bytes: return "trailing_bytes";
        case InflateStatus::output_overflow: return "output_overflow";
        case InflateStatus::size_mismatch: return "size_mismatch";
        case InflateStatus::crc_mismatch: return "crc_mismatch";
    }
    return "unknown";
}

void inflate_members_on_host(const char* input, const InflateMember* members, size_t count, char* output,
                             InflateOutcome* outcomes) {
    if (count == 0) return;
    const auto tables = std::make_unique<inflate::DecoderTables>();  // 7 KiB: not on the caller's stack
    for (size_t i = 0; i < count; ++i) {
        const InflateMember& m = members[i];
        outcomes[i] = inflate::inflate_gzip_member(reinterpret_cast<const unsigned char*>(input) + m.in_offset, m.in_size,
                                                   reinterpret_cast<unsigned char*>(output) + m.out_offset, m.out_size,
                                                   *tables, kCrc32Tables.t);
    }
}

}  // namespace invidx
