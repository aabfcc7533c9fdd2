// The decoding a warp shares out (devices/cuda/inflate/warp_member_decoder.cuh):
// lane 0 decodes a member's symbols with the host's decoder until the warp
// has a job, a long match or a stored block, that its 32 lanes copy
// together. Host and device, so the host tests run the same state machine
// with the lanes taken one after another (a job's lanes never read each
// other's bytes, so any order is the warp's), and the member's start, end
// and CRC pieces around the jobs. C++17, no CUDA headers.
#pragma once

#include <cstdint>

#include "devices/gpu_inflate.hpp"
#include "devices/inflate/crc32_combine.hpp"
#include "devices/inflate/deflate_member_decoder.hpp"

namespace invidx::inflate {

// Matches at least this long are copied by the whole warp; shorter ones by
// lane 0 (a hand-over costs two warp barriers, about what lane 0 spends on
// two 8-byte steps of copy_match).
constexpr uint32_t kWarpMatchMin = 16;

enum WarpJobKind : uint32_t {
    kJobDone = 0,    // the member's deflate data ended, or failed: lane 0's status says which
    kJobMatch = 1,   // out[to, to + length) = the bytes `source` (the distance) back
    kJobStored = 2,  // out[to, to + length) = in[source, source + length)
};

struct WarpJob {
    uint32_t kind;
    uint32_t to;
    uint32_t source;
    uint32_t length;
};

// Lane 0's decoding state between the jobs it hands to the warp.
struct LaneDecoder {
    BitReader r;
    uint32_t produced;  // text bytes decoded, jobs included (their bytes are the warp's to write)
    InflateStatus status;
    bool final_block;  // the block being decoded, or just decoded, is the last
    bool in_block;     // inside a Huffman block's symbols
};

// to[0, length) = the bytes `distance` back, for a match shorter than
// kWarpMatchMin: byte j is the byte (j mod distance) before `to`, all of
// them written already, so every load goes before any store, in
// registers (copy_match's pattern of a distance under 8 is an array the
// device keeps in local memory).
INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE void copy_short_match(unsigned char* to, uint32_t distance, uint32_t length) {
    constexpr uint32_t kMost = kWarpMatchMin - 1;
    const unsigned char* from = to - distance;
    uint32_t words[(kMost + 3) / 4] = {};  // the bytes packed four a register
    uint32_t at = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (uint32_t j = 0; j < kMost; ++j) {
        if (j < length) words[j / 4] |= uint32_t{from[at]} << (8 * (j % 4));
        at = at + 1 == distance ? 0 : at + 1;
    }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (uint32_t j = 0; j < kMost; ++j) {
        if (j < length) to[j] = static_cast<unsigned char>(words[j / 4] >> (8 * (j % 4)));
    }
}

// Decodes the member in[] into out[0, out_size) from where `d` stands until
// the warp has a job to do, exactly as inflate_gzip_member does (the same
// checks in the same order), but for the copies it hands over.
INVIDX_HOST_DEVICE inline WarpJob decode_until_job(LaneDecoder& d, const unsigned char* in, unsigned char* out, uint32_t out_size,
                                           DecoderTables& t) {
    constexpr WarpJob done{kJobDone, 0, 0, 0};
    BitReader& r = d.r;
    for (;;) {
        if (!d.in_block) {
            if (d.final_block) return done;
            BlockHeader block{};
            d.status = read_block_header(r, in, d.produced, out_size, t, block);
            if (d.status != InflateStatus::ok) return done;
            d.final_block = block.final_block;
            if (block.stored) {
                const WarpJob job{kJobStored, d.produced, r.pos, block.stored_length};
                d.produced += block.stored_length;
                r.pos += block.stored_length;
                if (block.stored_length > 0) return job;
                continue;
            }
            d.in_block = true;
        }
        // The block's symbols, up to its end-of-block code or a long match.
        for (;;) {
            if (!r.refill()) {
                d.status = InflateStatus::truncated;
                return done;
            }
            const uint32_t e = read_litlen_entry(r, t);
            const uint32_t kind = entry_kind(e);
            if (kind == kLiteral) {
                if (d.produced >= out_size) {
                    d.status = InflateStatus::output_overflow;
                    return done;
                }
                out[d.produced++] = static_cast<unsigned char>(entry_value(e));
                continue;
            }
            if (kind == kEnd) {
                d.in_block = false;
                break;
            }
            BlockMatch match;
            d.status = read_match(r, t, e, d.produced, out_size, match);
            if (d.status != InflateStatus::ok) return done;
            if (match.length >= kWarpMatchMin) {
                const WarpJob job{kJobMatch, d.produced, match.distance, match.length};
                d.produced += match.length;
                return job;
            }
            if (match.distance < 8) {
                copy_short_match(out + d.produced, match.distance, match.length);
            } else {
                copy_match(out + d.produced, match.distance, match.length, out_size - d.produced);
            }
            d.produced += match.length;
        }
    }
}

// The warp's share of a job, this lane's bytes: j = lane, lane + 32, ...
// A match's byte j is the byte (j mod distance) of the `distance` bytes
// before it (an overlapping match repeats them), all written before the
// job: no lane waits on another's bytes.
INVIDX_HOST_DEVICE inline void copy_job(const WarpJob& job, const unsigned char* in, unsigned char* out, uint32_t lane) {
    unsigned char* to = out + job.to;
    if (job.kind == kJobStored) {
        const unsigned char* from = in + job.source;
#if defined(__CUDA_ARCH__)
#pragma unroll 4
#endif
        for (uint32_t j = lane; j < job.length; j += 32) to[j] = from[j];
        return;
    }
    const uint32_t distance = job.source;
    const unsigned char* from = to - distance;
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

// Lane 0, before any job: the member's header, as inflate_gzip_member
// reads it. False, with the outcome, when there is no deflate data to decode.
INVIDX_HOST_DEVICE inline bool start_member(const unsigned char* in, uint32_t in_size, const uint32_t (*crc)[256], LaneDecoder& d,
                                            DecoderTables& t, InflateOutcome& outcome) {
    if (!open_member(in, in_size, crc, d.r, outcome)) return false;
    d.produced = 0;
    d.status = InflateStatus::ok;
    d.final_block = false;
    d.in_block = false;
    t.fixed_built = false;
    return true;
}

// Lane 0, after the last job: the outcome as inflate_gzip_member gives it,
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

// Lane 0, with the text's register (the pieces' XOR): the CRC-32 check.
INVIDX_HOST_DEVICE inline void settle_crc(uint32_t reg, const unsigned char* in, uint32_t in_size, InflateOutcome& outcome) {
    if (~reg != load_le32(in + in_size - 8)) {
        outcome.status = InflateStatus::crc_mismatch;
    } else {
        outcome.offset = in_size;  // the trailer read too
    }
}

}  // namespace invidx::inflate
