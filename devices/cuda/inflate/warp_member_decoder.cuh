// One gzip member decoded by one warp (the GPU inflate kernel's fast form;
// gpu_inflate.cu). A deflate stream's symbols decode one after another,
// each one's place known only once the one before it is decoded, so lane 0
// decodes them, with the decoder the host runs as the reference
// (devices/inflate/deflate_member_decoder.hpp: the same header parse, bit
// reader, tables and checks, so every status and offset is the host's);
// what does not depend on that chain goes to the whole warp:
//   - a long match or a stored block: lane 0 hands it over as a job and the
//     32 lanes copy it, a byte each per step;
//   - the CRC-32 of the text: each lane takes a 32nd of it, and the pieces'
//     registers combine (devices/inflate/crc32_combine.hpp).
// Lane 0's tables live in the warp's slice of shared memory, not in local
// memory, and a batch of thousands of members is thousands of warps: enough
// to hide the latency of each warp's chain of dependent lookups.
#pragma once

#include <cstdint>

#include "devices/gpu_inflate.hpp"
#include "devices/inflate/crc32_combine.hpp"
#include "devices/inflate/deflate_member_decoder.hpp"
#include "devices/inflate/warp_jobs.hpp"

namespace invidx::inflate {

// What the warp's shared memory holds for one member's decoding.
struct WarpSlot {
    WarpJob job;  // lane 0 writes it, the warp reads it after a __syncwarp
    DecoderTables tables;  // lane 0's alone
};

// The member in[0, in_size) into out[0, out_size), by the whole warp (every
// lane calls it with the same arguments); lane 0 returns the outcome that
// inflate_gzip_member returns for it. `crc` a Crc32Tables' t and
// `shift_powers` a Crc32ShiftPowers' powers, both in shared memory.
__device__ inline InflateOutcome inflate_gzip_member_by_warp(const unsigned char* in, uint32_t in_size, unsigned char* out,
                                                             uint32_t out_size, WarpSlot& slot, const uint32_t (*crc)[256],
                                                             const uint32_t* shift_powers) {
    constexpr unsigned kAll = 0xFFFFFFFFu;
    const uint32_t lane = threadIdx.x & 31;
    InflateOutcome outcome;
    LaneDecoder d{};
    int decoding = 0;
    if (lane == 0) decoding = start_member(in, in_size, crc, d, slot.tables, outcome);
    if (__shfl_sync(kAll, decoding, 0) == 0) return outcome;

    for (;;) {
        if (lane == 0) slot.job = decode_until_job(d, in, out, out_size, slot.tables);
        __syncwarp();  // the job, and lane 0's text before it, seen by every lane
        const WarpJob job = slot.job;
        if (job.kind == kJobDone) break;
        copy_job(job, in, out, lane);
        __syncwarp();  // the job's bytes written before lane 0 reads them or writes the next job
    }

    int check_crc = 0;
    if (lane == 0) check_crc = finish_member(d, in, in_size, out_size, outcome);
    __syncwarp();  // every lane past reading the last job before the next member's is written
    if (__shfl_sync(kAll, check_crc, 0) == 0) return outcome;

    // All of out[0, out_size) is written, the loop's last __syncwarp ordering it.
    uint32_t reg = crc32_of_piece(out, out_size, lane, crc, shift_powers);
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) reg ^= __shfl_xor_sync(kAll, reg, offset);
    if (lane == 0) settle_crc(reg, in, in_size, outcome);
    return outcome;
}

}  // namespace invidx::inflate
