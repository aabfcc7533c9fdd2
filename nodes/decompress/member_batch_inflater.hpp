// Where the decompress node's GPU workers inflate batches of whole gzip
// members: a GpuInflater (devices/gpu_inflate.hpp) on a GPU, or, for the
// tests, the same batch inflated member by member on the host (libdeflate
// where built, zlib otherwise). ChunkBatch (chunk_batch.hpp) fills a batch
// and reads its text back through this interface only, so everything but
// the device itself is tested on any machine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "devices/gpu_inflate.hpp"

namespace invidx {

// What one batch may hold: compressed bytes in, text bytes out, members.
struct MemberBatchLimits {
    size_t input_bytes = 0;
    size_t output_bytes = 0;
    size_t members = 0;
};

// A GPU worker's batch: up to 16 MiB of compressed input (4 read blocks at
// the default size, some thousands of members). Its page-locked buffers
// (about 9 times that) are allocated and freed once a build, which takes
// tenths of a second per GB, and two batches a GPU keep it busy.
inline constexpr size_t kDefaultGpuBatchBytes = size_t{16} << 20;

// The limits of a GPU worker's batch for `input_bytes` of compressed input:
// 8 times that of text (WARC.gz HTML inflates about 5x; a batch whose text
// would not fit ends early) and a member per 256 compressed bytes.
MemberBatchLimits member_batch_limits(size_t input_bytes);

class MemberBatchInflater {
public:
    virtual ~MemberBatchInflater() = default;
    virtual const MemberBatchLimits& limits() const = 0;
    // The batch's compressed bytes go here (limits().input_bytes).
    virtual char* input() = 0;
    // The batch's text is here after inflate() (limits().output_bytes).
    virtual const char* output() const = 0;
    // Inflates every member of input()[0, input_size): one outcome per
    // member, ok only where the member decodes to exactly out_size bytes
    // whose CRC-32 and length match its trailer, ending at its last byte.
    virtual std::vector<InflateOutcome> inflate(size_t input_size, const std::vector<InflateMember>& members) = 0;
    // The last inflate()'s device time by step (CUDA events); zeros on the host.
    virtual GpuInflater::Timings last_device_seconds() const { return {}; }
    // The last inflate()'s text also in the memory of GPU device_ordinal()
    // (GpuInflater::resident_output), or null.
    virtual std::shared_ptr<const char> device_output() const { return nullptr; }
    virtual int device_ordinal() const { return -1; }
    // Batches whose text stayed on the device, and those that found no device buffer free.
    virtual uint64_t resident_batches() const { return 0; }
    virtual uint64_t resident_misses() const { return 0; }
    virtual uint64_t resident_device_bytes() const { return 0; }
};

// On the host, member by member: libdeflate where the build has it, else
// zlib; or, with `kernel_decoder`, the GPU kernel's own decoder
// (inflate_members_on_host), so that tests see the GPU's outcomes. With
// `pretend_device` (an ordinal), device_output() is a copy of each batch's
// text in host memory said to be on that GPU: for tests of where text
// blocks point, never for a GPU parser, which would read host addresses.
std::unique_ptr<MemberBatchInflater> make_host_member_inflater(const MemberBatchLimits& limits,
                                                               bool kernel_decoder = false, int pretend_device = -1);

// On GPU `ordinal` (a GpuInflater). Throws invidx::Error when the GPU cannot be used.
// resident_outputs: device buffers a batch's text may stay in for the GPU
// parsers there (GpuInflater's); 0: none.
std::unique_ptr<MemberBatchInflater> make_gpu_member_inflater(int ordinal, const MemberBatchLimits& limits,
                                                              size_t resident_outputs = 0);

}  // namespace invidx
