// One whole gzip member inflated in memory, its CRC-32 and ISIZE checked:
// libdeflate where the build has it (one decompressor per thread), zlib
// otherwise. Used where the member's bytes and text length are known up
// front: the host stand-in for a GPU (host_member_inflater.cpp) and the CPU
// workers that inflate the long members a GPU batch leaves (chunk_batch.hpp).
#pragma once

#include <cstddef>

#include "devices/gpu_inflate.hpp"

namespace invidx {

// Inflates the member in[0, in_size) (header through trailer) into
// out[0, out_size), out_size being its ISIZE. ok only where the member
// decodes to exactly out_size bytes, its trailer matches them, and it ends
// at in_size; anything else is only reported (the caller decodes those bytes
// again with GzipStream, whose errors users see).
InflateStatus inflate_whole_member(const char* in, size_t in_size, char* out, size_t out_size);

}  // namespace invidx
