// The lanes of a warp in lockstep (lockstep_decoding.hpp's `Lanes`) taken on
// the host, as the kernels' WarpLanes take them: every copy's 32 shares last
// to first (any order must do: a lane never reads what another writes in
// one copy), a short match's bytes read at once and stored at the next copy
// or the flush. Out: unsigned char for a member's text, uint16_t for a
// stream piece's symbols (HostPieceLanes). The tests hold the warp decoders
// to the host's with them; the decompress node's pretend GPUs (tests)
// decode stream pieces with them.
#pragma once

#include <cstdint>

#include "devices/inflate/dynamic_block_search.hpp"
#include "devices/inflate/lockstep_piece_decoding.hpp"
#include "devices/inflate/warp_jobs.hpp"

namespace invidx::inflate {

template <class Out>
struct HostLanesOf {
    static constexpr uint32_t kNone = 0xFFFFFFFFu;
    uint32_t pending_to = kNone, pending_length = 0;
    Out pending[32] = {};

    void write_literal(Out* at, Out byte) const { *at = byte; }
    void flush(Out* out) {
        for (uint32_t lane = 32; pending_to != kNone && lane-- > 0;) {
            if (lane < pending_length) out[pending_to + lane] = pending[lane];
        }
        pending_to = kNone;
    }
    void copy(const WarpJob& job, const unsigned char* in, Out* out) {
        flush(out);
        if (job.kind == inflate::kJobMatch && job.length <= 32) {
            for (uint32_t lane = 32; lane-- > 0;) {
                if (lane < job.length) pending[lane] = short_match_byte(out + job.to, job.source, job.length, lane);
            }
            pending_to = job.to;
            pending_length = job.length;
            return;
        }
        for (uint32_t lane = 32; lane-- > 0;) copy_job(job, in, out, lane);
    }
};

using HostLanes = HostLanesOf<unsigned char>;

// lockstep_piece_decoding.hpp's lanes: the 32 positions' tests one after another.
struct HostPieceLanes : HostLanesOf<uint16_t> {
    uint32_t candidates(const unsigned char* in, uint32_t size, uint64_t bit, uint64_t end) const {
        uint32_t mask = 0;
        for (uint32_t lane = 0; lane < 32; ++lane) {
            if (bit + lane < end && could_start_dynamic_block(in, size, bit + lane)) mask |= 1u << lane;
        }
        return mask;
    }
    void fill_markers(uint16_t* out) const {
        for (uint32_t j = 0; j < kPieceWindowSymbols; ++j) out[j] = static_cast<uint16_t>(256 + j);
    }
};

}  // namespace invidx::inflate
