// What a warp shares out when it decodes one gzip member in lockstep
// (devices/inflate/lockstep_decoding.hpp, devices/cuda/inflate/warp_member_decoder.cuh):
// the decoder's state each lane holds, the jobs (a match or a stored block)
// the 32 lanes copy together, and the member's start, end and CRC pieces
// around them. Host and device, so the host tests run the same steps with
// the lanes taken one after another (a job's lanes never read each other's
// bytes, so any order is the warp's). C++17, no CUDA headers.
#pragma once

#include <cstdint>

#include "devices/gpu_inflate.hpp"
#include "devices/inflate/crc32_combine.hpp"
#include "devices/inflate/deflate_member_decoder.hpp"

namespace invidx::inflate {

enum WarpJobKind : uint32_t {
    kJobMatch = 1,   // out[to, to + length) = the bytes `source` (the distance) back
    kJobStored = 2,  // out[to, to + length) = in[source, source + length)
};

struct WarpJob {
    uint32_t kind;
    uint32_t to;
    uint32_t source;
    uint32_t length;
};

// The decoding state, the same in every lane.
struct LaneDecoder {
    BitReader r;
    uint32_t produced;  // text bytes decoded, jobs included (their bytes are the warp's to write)
    InflateStatus status;
    bool final_block;  // the block being decoded, or just decoded, is the last
};

// Lane `lane`'s byte of a match of at most 32 bytes at `to` (lane <
// length): the byte (lane mod distance) of the `distance` bytes before it,
// written before the match.
template <class Out>
INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE Out short_match_byte(const Out* to, uint32_t distance, uint32_t length, uint32_t lane) {
    return (to - distance)[distance >= length ? lane : lane % distance];
}

// The warp's share of a job, this lane's bytes: j = lane, lane + 32, ...
// (a match of at most 32 bytes is short_match_byte's, one byte a lane,
// which the lanes take themselves to defer its store).
// A match's byte j is the byte (j mod distance) of the `distance` bytes
// before it (an overlapping match repeats them), all written before the
// job: no lane waits on another's bytes.
template <class Out>
INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE void copy_job(const WarpJob& job, const unsigned char* in, Out* out, uint32_t lane) {
    Out* to = out + job.to;
    if (job.kind == kJobStored) {
        const unsigned char* from = in + job.source;
#if defined(__CUDA_ARCH__)
#pragma unroll 4
#endif
        for (uint32_t j = lane; j < job.length; j += 32) to[j] = from[j];
        return;
    }
    const uint32_t distance = job.source;
    const Out* from = to - distance;
    if (distance >= job.length) {
        for (uint32_t j = lane; j < job.length; j += 32) to[j] = from[j];
        return;
    }
    // (j + 32) mod distance from j mod distance: add 32 mod distance, less
    // than distance, so one subtraction at most.
    const uint32_t step = 32 % distance;
    uint32_t at = lane % distance;
    for (uint32_t j = lane; j < job.length; j += 32) {
        to[j] = from[at];
        at += step;
        if (at >= distance) at -= distance;
    }
}

// Before any job: the member's header, as inflate_gzip_member reads it. False, with the outcome, when there is no deflate data to decode.
INVIDX_HOST_DEVICE inline bool start_member(const unsigned char* in, uint32_t in_size, const uint32_t (*crc)[256], LaneDecoder& d,
                                            DecoderTables& t, InflateOutcome& outcome) {
    if (!open_member(in, in_size, crc, d.r, outcome)) return false;
    d.produced = 0;
    d.status = InflateStatus::ok;
    d.final_block = false;
    t.fixed_built = false;
    return true;
}

// After the last job: the outcome as inflate_gzip_member gives it,
// but for the CRC-32. True when the text's CRC-32 decides the rest
// (settle_crc): everything else held.
INVIDX_HOST_DEVICE inline bool finish_member(const LaneDecoder& d, const unsigned char* in, uint32_t in_size, uint32_t out_size,
                                             InflateOutcome& outcome) {
    // Bits made up past the deflate data's end explain any failure.
    InflateStatus status = d.status;
    if (d.r.past_end()) status = InflateStatus::truncated;
    const uint64_t stopped = (d.r.consumed_bits() + 7) / 8;
    outcome.offset = static_cast<uint32_t>(stopped < in_size ? stopped : in_size);
    bool check_crc = false;
    if (status == InflateStatus::ok) {
        if (stopped != d.r.end) {
            status = InflateStatus::trailing_bytes;
        } else if (d.produced != out_size || d.produced != load_le32(in + in_size - 4)) {
            status = InflateStatus::size_mismatch;
        } else {
            check_crc = true;
        }
    }
    outcome.status = status;
    return check_crc;
}

// The text out[0, size) in 32 pieces of a multiple of 8 bytes: piece
// `lane`'s CRC register (devices/inflate/crc32_combine.hpp), carried through
// the bytes after it. The XOR of the 32 is the text's register.
INVIDX_HOST_DEVICE inline uint32_t crc32_of_piece(const unsigned char* out, uint32_t size, uint32_t lane,
                                                  const uint32_t (*crc)[256], const uint32_t* shift_powers) {
    const uint64_t piece = ((uint64_t{size} + 31) / 32 + 7) & ~uint64_t{7};
    const uint64_t begin = uint64_t{lane} * piece < size ? uint64_t{lane} * piece : size;
    const uint64_t end = begin + piece < size ? begin + piece : size;
    const uint32_t reg = crc32_register(lane == 0 ? 0xFFFFFFFFu : 0u, out + begin, end - begin, crc);
    return crc32_shift(reg, static_cast<uint32_t>(size - end), shift_powers);
}

// With the text's register (the pieces' XOR): the CRC-32 check.
INVIDX_HOST_DEVICE inline void settle_crc(uint32_t reg, const unsigned char* in, uint32_t in_size, InflateOutcome& outcome) {
    if (~reg != load_le32(in + in_size - 8)) {
        outcome.status = InflateStatus::crc_mismatch;
    } else {
        outcome.offset = in_size;  // the trailer read too
    }
}

}  // namespace invidx::inflate
