// A member's deflate data decoded by a warp in lockstep (the GPU inflate
// kernel's; devices/cuda/inflate/warp_member_decoder.cuh): every lane runs
// this loop on the same bits, so every table entry and input word is one
// address broadcast to the warp and every branch goes the same way; lane 0
// writes the literals and the whole warp copies each match, a byte a lane.
// `Lanes` says how, with
//   write_literal(at, byte)  lane 0's store
//   copy(job, in, out)       this lane's share of a match or stored block
//                            (warp_jobs.hpp), once the bytes before it are
//                            written; a short match's store may wait
//   flush(out)               stores what a copy left waiting
// On the device, one lane's part after a __syncwarp; on the host (the
// tests), all 32 lanes' parts one after another. The checks are
// inflate_gzip_member's, in its order, so every status and offset is the
// host decoder's. C++17, no CUDA headers.
#pragma once

#include <cstdint>

#include "devices/gpu_inflate.hpp"
#include "devices/inflate/deflate_member_decoder.hpp"
#include "devices/inflate/warp_jobs.hpp"

namespace invidx::inflate {

// A Huffman block's symbols from r to its end-of-block code: literals and
// matches into out from `produced` on. The bit buffer refills a word at a
// time (refill32) before the literal/length code and again before the
// distance code, at most 20 and 28 bits each. ok, or why not.
// Out: unsigned char for text; uint16_t for a stream piece's symbols
// (devices/inflate/lockstep_piece_decoding.hpp), whose copies copy markers.
template <class Lanes, class Out>
INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE InflateStatus decode_symbols_in_lockstep(BitReader& r, const DecoderTables& t,
                                                                                  Out* out, uint32_t& produced,
                                                                                  uint32_t out_size, Lanes& lanes) {
    for (;;) {
        if (!r.refill32()) return InflateStatus::truncated;
        const uint32_t e = read_litlen_entry(r, t);
        const uint32_t kind = entry_kind(e);
        if (kind == kLiteral) {
            if (produced >= out_size) return InflateStatus::output_overflow;
            lanes.write_literal(out + produced, static_cast<Out>(entry_value(e)));
            ++produced;
            // A run of literals without a refill each: the next ones while
            // their codes are in the primary table and within the bits held
            // (their checks as the loop's; a refill only stops a member far
            // past its end, which ends it as truncated either way).
            for (;;) {
                const uint32_t next = t.litlen[r.peek(kLitLenPrimaryBits)];
                if (entry_kind(next) != kLiteral || entry_bits(next) > r.count) break;
                r.drop(entry_bits(next));
                if (produced >= out_size) return InflateStatus::output_overflow;
                lanes.write_literal(out + produced, static_cast<Out>(entry_value(next)));
                ++produced;
            }
            continue;
        }
        if (kind == kEnd) return InflateStatus::ok;
        if (kind != kLength) return InflateStatus::bad_deflate;
        BlockMatch match;
        match.length = entry_value(e) + r.take(entry_extra(e));
        if (!r.refill32()) return InflateStatus::truncated;
        const InflateStatus status = read_distance(r, t, produced, out_size, match);
        if (status != InflateStatus::ok) return status;
        lanes.copy(WarpJob{kJobMatch, produced, match.distance, match.length}, r.in, out);
        produced += match.length;
    }
}

// From start_member's state to the end of the member's last block, or to
// what stops it.
template <class Lanes>
INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE void decode_blocks_in_lockstep(LaneDecoder& d, const unsigned char* in, unsigned char* out,
                                                                        uint32_t out_size, DecoderTables& t, Lanes& lanes) {
    BitReader& r = d.r;
    while (!d.final_block) {
        BlockHeader block{};
        d.status = read_block_header(r, in, d.produced, out_size, t, block);
        if (d.status != InflateStatus::ok) return;
        d.final_block = block.final_block;
        if (block.stored) {
            if (block.stored_length > 0) lanes.copy(WarpJob{kJobStored, d.produced, r.pos, block.stored_length}, in, out);
            d.produced += block.stored_length;
            r.pos += block.stored_length;
            continue;
        }
        d.status = decode_symbols_in_lockstep(r, t, out, d.produced, out_size, lanes);
        if (d.status != InflateStatus::ok) return;
    }
}

// From start_member's state to the end of the member's last block, as
// inflate_gzip_member decodes it, every copy's bytes stored; finish_member
// and the CRC-32 follow. The result in d (status, produced, the reader
// where it stopped).
template <class Lanes>
INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE void decode_member_in_lockstep(LaneDecoder& d, const unsigned char* in, unsigned char* out,
                                                                        uint32_t out_size, DecoderTables& t, Lanes& lanes) {
    decode_blocks_in_lockstep(d, in, out, out_size, t, lanes);
    lanes.flush(out);
}

}  // namespace invidx::inflate
