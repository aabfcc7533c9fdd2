// The lanes of a warp decoding a stream piece in lockstep
// (devices/inflate/lockstep_piece_decoding.hpp): WarpLanesOf<uint16_t>
// (warp_member_decoder.cuh) for the symbols, plus the search's 32 positions
// tested at once, one a lane, and the window's markers written by all.
#pragma once

#include <cstdint>

#include "devices/cuda/inflate/warp_member_decoder.cuh"
#include "devices/inflate/dynamic_block_search.hpp"
#include "devices/inflate/lockstep_piece_decoding.hpp"

namespace invidx::inflate {

struct WarpPieceLanes : WarpLanesOf<uint16_t> {
    __device__ __forceinline__ uint32_t candidates(const unsigned char* in, uint32_t size, uint64_t bit, uint64_t end) const {
        const uint64_t at = bit + lane;
        const bool pass = at < end && could_start_dynamic_block(in, size, at);
        return __ballot_sync(0xFFFFFFFFu, pass);
    }
    __device__ __forceinline__ void fill_markers(uint16_t* out) const {
        for (uint32_t j = lane; j < kPieceWindowSymbols; j += 32) out[j] = static_cast<uint16_t>(256 + j);
        __syncwarp();
    }
};

}  // namespace invidx::inflate
