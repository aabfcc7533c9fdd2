// One gzip member decoded by one warp in lockstep (the GPU inflate kernel's
// default; gpu_inflate.cu). A deflate stream's symbols decode one after
// another, each one's place known only once the one before it is decoded,
// so every lane runs the same decoder on the same bits
// (devices/inflate/lockstep_decoding.hpp, with the host decoder's header
// parse, bit reader, tables and checks: every status and offset is the
// host's): one address a load, broadcast to the warp, the same branches in
// every lane. What does not depend on that chain is shared out:
//   - lane 0 writes the literals; every match and stored block is copied
//     by the 32 lanes at once, a byte each per step;
//   - the CRC-32 of the text: each lane takes a 32nd of it, and the pieces'
//     registers combine (devices/inflate/crc32_combine.hpp).
// The tables live in the warp's shared memory, which every lane writes
// alike when a block header is decoded.
#pragma once

#include <cstdint>

#include "devices/gpu_inflate.hpp"
#include "devices/inflate/crc32_combine.hpp"
#include "devices/inflate/deflate_member_decoder.hpp"
#include "devices/inflate/lockstep_decoding.hpp"
#include "devices/inflate/warp_jobs.hpp"

namespace invidx::inflate {

// The lanes of a warp decoding in lockstep (lockstep_decoding.hpp's
// `Lanes`). A copy starts with a __syncwarp, so lane 0's literals and the
// copies before are seen by every lane. A match of at most 32 bytes (most
// of them) is one load a lane, and its store waits in a register until the
// next copy or the end, so the load's latency overlaps the next symbols'
// decoding instead of stalling the warp (ncu: a store waiting on its load
// was 18% of the kernel's stall samples).
// Out: unsigned char for a member's text; uint16_t for a stream piece's
// symbols (warp_piece_decoder.cuh).
template <class Out>
struct WarpLanesOf {
    static constexpr uint32_t kNone = 0xFFFFFFFFu;
    uint32_t lane;
    uint32_t pending_at = kNone;  // where this lane's byte of the last short match goes
    Out pending = 0;

    __device__ __forceinline__ void write_literal(Out* at, Out byte) const {
        if (lane == 0) *at = byte;
    }
    __device__ __forceinline__ void flush(Out* out) {
        if (pending_at != kNone) out[pending_at] = pending;
        pending_at = kNone;
    }
    __device__ __forceinline__ void copy(const WarpJob& job, const unsigned char* in, Out* out) {
        flush(out);
        __syncwarp();
        if (job.kind == kJobMatch && job.length <= 32) {
            if (lane < job.length) {
                pending = short_match_byte(out + job.to, job.source, job.length, lane);
                pending_at = job.to + lane;
            }
            return;
        }
        copy_job(job, in, out, lane);
    }
};

using WarpLanes = WarpLanesOf<unsigned char>;

// The member in[0, in_size) into out[0, out_size), by the whole warp (every
// lane calls it with the same arguments); every lane returns the outcome
// that inflate_gzip_member returns for it. `tables` in the warp's shared
// memory; `crc` a Crc32Tables' t, `shift_powers` a Crc32ShiftPowers' powers.
__device__ inline InflateOutcome inflate_gzip_member_by_warp(const unsigned char* in, uint32_t in_size, unsigned char* out,
                                                             uint32_t out_size, DecoderTables& tables, const uint32_t (*crc)[256],
                                                             const uint32_t* shift_powers) {
    constexpr unsigned kAll = 0xFFFFFFFFu;
    WarpLanes lanes{threadIdx.x & 31};
    InflateOutcome outcome;
    LaneDecoder d{};
    if (!start_member(in, in_size, crc, d, tables, outcome)) return outcome;
    decode_member_in_lockstep(d, in, out, out_size, tables, lanes);
    __syncwarp();  // all of the text written before any lane reads it for the CRC-32
    if (!finish_member(d, in, in_size, out_size, outcome)) return outcome;
    uint32_t reg = crc32_of_piece(out, out_size, lanes.lane, crc, shift_powers);
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) reg ^= __shfl_xor_sync(kAll, reg, offset);
    settle_crc(reg, in, in_size, outcome);
    return outcome;
}

}  // namespace invidx::inflate
