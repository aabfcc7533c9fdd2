// Stream pieces' window markers resolved through the pieces before them in
// one batch: the step a GPU batch could take before the pieces' symbols
// cross to the host (bench/piece_chains_bench.cpp measures how much it
// would resolve). A piece's room holds its window's place, markers 256 + j
// (lockstep_piece_decoding.hpp), then its text symbols; the window of a
// piece whose block starts where the piece before it ended is the last
// 32 KiB of that piece's room. So a marker of piece k names a symbol of the
// piece before, a byte or a marker of that piece's window in turn, and
// following it back ends at a byte, or at a piece with no piece before it
// in the batch (a run's first, whose window only the pieces decoded in
// order give: the host's). The chain holds only if the pieces before are
// right, which the reassembler establishes in order: what a batch
// resolves this way must be taken only after each piece it went through
// was accepted as decoded. C++17, no CUDA headers.
#pragma once

#include <cstddef>
#include <cstdint>

#include "devices/inflate/deflate_member_decoder.hpp"
#include "devices/inflate/lockstep_piece_decoding.hpp"

namespace invidx::inflate {

inline constexpr uint32_t kNoPieceBefore = 0xFFFFFFFFu;
inline constexpr uint32_t kUnresolved = 0xFFFFFFFFu;

// A piece's room in a batch's symbols.
struct ChainedRoom {
    uint64_t offset = 0;                // its window's place (kPieceWindowSymbols), then its text
    uint32_t symbols = 0;               // text symbols
    uint32_t before = kNoPieceBefore;   // the piece whose room ends with its window
};

// The byte that `symbol` of piece k stands for, followed back through at
// most `max_hops` pieces; kUnresolved where it reaches a piece with none
// before it, or goes further. `hops`: the pieces it went back.
INVIDX_HOST_DEVICE inline uint32_t resolve_through_chain(const uint16_t* rooms, const ChainedRoom* pieces, uint32_t k,
                                                         uint16_t symbol, uint32_t max_hops, uint32_t& hops) {
    hops = 0;
    while (symbol >= 256) {
        const uint32_t before = pieces[k].before;
        if (before == kNoPieceBefore || hops == max_hops) return kUnresolved;
        const ChainedRoom& b = pieces[before];
        // Its room is window + text: its last 32 KiB start at its text size.
        symbol = rooms[b.offset + b.symbols + (symbol - 256u)];
        k = before;
        ++hops;
    }
    return symbol;
}

// Where a batch's pieces lie in their files (their outcomes' bits count
// from `base_bit`).
struct PieceIdentity {
    uint32_t file = 0;
    uint64_t index = 0;     // the piece's place in its file: 0, 1, 2, ...
    uint64_t base_bit = 0;  // the file bit where the piece's bytes start
};

// Each piece's `before`: the latest piece j of its file before it in the
// batch with text (ok, a block start), where the pieces of the file
// between them are ok without a block start, no index is missing from j
// to k, j did not end the stream, and k's block starts where j ended.
// Else none. Other files' pieces between them do not matter.
inline void chain_pieces(const PieceIdentity* ids, const PieceOutcome* outcomes, size_t count, ChainedRoom* rooms) {
    for (size_t k = 0; k < count; ++k) {
        rooms[k].before = kNoPieceBefore;
        const PieceOutcome& o = outcomes[k];
        if (!o.ok || o.no_block) continue;
        uint64_t next = ids[k].index;  // the index the piece before must have
        for (size_t j = k; j-- > 0;) {
            if (ids[j].file != ids[k].file) continue;
            if (next == 0 || ids[j].index != next - 1 || !outcomes[j].ok) break;
            next = ids[j].index;
            if (outcomes[j].no_block) continue;
            const PieceOutcome& before = outcomes[j];
            if (!before.final_block && ids[j].base_bit + before.end_bit == ids[k].base_bit + o.start_bit)
                rooms[k].before = static_cast<uint32_t>(j);
            break;
        }
    }
}

}  // namespace invidx::inflate
