// A piece of one deflate stream decoded by a warp in lockstep, its 32 KiB
// window unknown: the GPU's form of decode_deflate_piece
// (nodes/decompress/deflate_piece.hpp, which says what a piece is), with the
// same search, stops and symbols (bytes, and markers 256 + j for byte j of
// the window before the piece), so that a piece the GPU decodes goes
// through the same reassembly as one a CPU worker decodes.
//
// The warp's lanes test 32 bit positions of the search at once
// (`Lanes::candidates`: a dynamic block's header could start there); from
// the first that passes, every lane runs the member decoder's steps in
// lockstep (lockstep_decoding.hpp) on uint16 symbols: a header read whole
// and its block decoded whole, or the next candidate. Then blocks on until
// the first dynamic block at or after the stop, or the stream's final
// block. Unlike the CPU's search (whose symbols grow as needed), a piece
// has fixed room: a candidate whose block outgrows it ends the search, the
// piece not ok (out_of_room), where trying later candidates would start
// the piece at a later block. `Lanes` is lockstep_decoding.hpp's, plus
//   candidates(in, size, bit, end)  bit k set: position bit + k < end passes
//                                   could_start_dynamic_block
//   fill_markers(out)               out[j] = 256 + j for j < kPieceWindowSymbols
// C++17, no CUDA headers.
#pragma once

#include <cstdint>

#include "devices/inflate/deflate_member_decoder.hpp"
#include "devices/inflate/dynamic_block_search.hpp"
#include "devices/inflate/lockstep_decoding.hpp"
#include "devices/inflate/warp_jobs.hpp"

namespace invidx::inflate {

// The window's place before a piece's text: markers 256 .. 256 + 32767.
constexpr uint32_t kPieceWindowSymbols = 32768;

// Where a piece is searched for and where it stops, in bits of its bytes.
struct PieceBounds {
    uint64_t search_bit = 0;      // the search starts here...
    uint64_t search_end_bit = 0;  // ...and tests positions before this
    uint64_t stop_bit = 0;        // stop at the first dynamic block at or after it
    uint32_t has_stop = 0;        // 0: decode to the stream's final block
};

// What decoding a piece gave (decode_deflate_piece's DeflatePiece, its
// symbols in the caller's buffer: the text's `symbols` from
// kPieceWindowSymbols on).
struct PieceOutcome {
    uint64_t start_bit = 0;      // of the piece's first block
    uint64_t end_bit = 0;        // where it stopped, or the final block's end
    uint64_t after_trailer = 0;  // the byte after the gzip trailer, when read
    uint32_t symbols = 0;        // text symbols
    uint32_t trailer_crc = 0;
    uint32_t trailer_size = 0;
    uint8_t ok = 0;              // decoded from start_bit to end_bit
    uint8_t final_block = 0;     // the stream's final block ended in the piece
    uint8_t trailer_read = 0;    // and the bytes hold its trailer
    uint8_t no_block = 0;        // ok, no block starts before the stop: start_bit = end_bit = the stop
    uint8_t out_of_room = 0;     // not ok: its blocks made more symbols than its room
};

// The lowest set bit's position (x not 0).
INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE uint32_t lowest_set_bit(uint32_t x) {
#if defined(__CUDA_ARCH__)
    return static_cast<uint32_t>(__ffs(static_cast<int>(x)) - 1);
#else
    return static_cast<uint32_t>(__builtin_ctz(x));
#endif
}

// The stream's final block ended at the reader: its trailer, when the bytes hold it.
INVIDX_HOST_DEVICE inline void finish_piece_at_final_block(const BitReader& r, uint64_t size, PieceOutcome& o) {
    o.final_block = 1;
    o.end_bit = r.consumed_bits();
    const uint64_t trailer = (o.end_bit + 7) / 8;
    if (trailer + 8 <= size) {
        o.trailer_read = 1;
        o.trailer_crc = load_le32(r.in + trailer);
        o.trailer_size = load_le32(r.in + trailer + 4);
        o.after_trailer = trailer + 8;
    }
    o.ok = 1;
}

// A block at the reader (a block boundary): its header and body into
// out from `produced`. ok, or why not; `final_block` from its header.
template <class Lanes>
INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE InflateStatus decode_piece_block(BitReader& r, const unsigned char* in,
                                                                          uint16_t* out, uint32_t& produced, uint32_t capacity,
                                                                          DecoderTables& t, Lanes& lanes, bool& final_block) {
    BlockHeader block{};
    InflateStatus status = read_block_header(r, in, produced, capacity, t, block);
    if (status != InflateStatus::ok) return status;
    final_block = block.final_block;
    if (block.stored) {
        if (block.stored_length > 0) lanes.copy(WarpJob{kJobStored, produced, r.pos, block.stored_length}, in, out);
        produced += block.stored_length;
        r.pos += block.stored_length;
    } else {
        status = decode_symbols_in_lockstep(r, t, out, produced, capacity, lanes);
        if (status != InflateStatus::ok) return status;
    }
    return r.past_end() ? InflateStatus::truncated : InflateStatus::ok;
}

// The piece of in[0, size) within `bounds` into out[0, capacity) (the
// window's markers, then its text), by every lane with the same arguments.
template <class Lanes>
INVIDX_HOST_DEVICE inline PieceOutcome decode_piece_in_lockstep(const unsigned char* in, uint32_t size, const PieceBounds& bounds,
                                                                uint16_t* out, uint32_t capacity, DecoderTables& t, Lanes& lanes) {
    PieceOutcome o;
    if (capacity <= kPieceWindowSymbols) return o;
    lanes.fill_markers(out);
    t.fixed_built = false;
    uint64_t search_end = bounds.search_end_bit < uint64_t{size} * 8 ? bounds.search_end_bit : uint64_t{size} * 8;
    // As decode_deflate_piece: the search ends at the stop.
    const bool stops = bounds.has_stop && bounds.stop_bit <= search_end;
    if (stops) search_end = bounds.stop_bit;
    for (uint64_t group = bounds.search_bit; group < search_end; group += 32) {
        for (uint32_t candidates = lanes.candidates(in, size, group, search_end); candidates != 0; candidates &= candidates - 1) {
            const uint64_t bit = group + lowest_set_bit(candidates);
            // A stale short match of a failed try is stored first: the try
            // from here writes its text over it.
            lanes.flush(out);
            BitReader r{in, size, static_cast<uint32_t>(bit >> 3), 0, 0};
            r.refill();
            r.drop(static_cast<uint32_t>(bit & 7));
            uint32_t produced = kPieceWindowSymbols;
            bool final_block = false;
            const InflateStatus first = decode_piece_block(r, in, out, produced, capacity, t, lanes, final_block);
            if (first == InflateStatus::output_overflow) {
                // A block that decodes this far is the piece's first: no
                // later candidate may stand in for it (the piece would
                // start past where the one before ends, and be decoded
                // again in order). Not ok: a CPU worker, with room, searches it.
                lanes.flush(out);
                o.out_of_room = 1;
                return o;
            }
            if (first != InflateStatus::ok) continue;
            o.start_bit = bit;
            while (!final_block) {
                const uint64_t at = r.consumed_bits();
                // Only a dynamic block ends a piece (the next piece's search
                // finds no other kind).
                if (bounds.has_stop && at >= bounds.stop_bit && r.refill() && (r.peek(3) & 6) == 4) {
                    o.end_bit = at;
                    o.ok = 1;
                    o.symbols = produced - kPieceWindowSymbols;
                    lanes.flush(out);
                    return o;
                }
                const InflateStatus next = decode_piece_block(r, in, out, produced, capacity, t, lanes, final_block);
                if (next != InflateStatus::ok) {
                    lanes.flush(out);
                    o.out_of_room = next == InflateStatus::output_overflow;
                    return o;  // not ok
                }
            }
            finish_piece_at_final_block(r, size, o);
            o.symbols = produced - kPieceWindowSymbols;
            lanes.flush(out);
            return o;
        }
    }
    lanes.flush(out);
    if (stops) {
        o.start_bit = o.end_bit = bounds.stop_bit;
        o.no_block = 1;
        o.ok = 1;
    }
    return o;
}

}  // namespace invidx::inflate
