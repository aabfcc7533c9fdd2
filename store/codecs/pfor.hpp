// PForDelta as Ding et al. adapt it for GPUs (WWW 2009, §6.2; PForDelta:
// Zukowski et al. 2006, Zhang, Long & Suel 2008). One bit width b for the
// whole sequence given, the smallest that holds at least 90% of the values;
// every value's low b bits sit in a fixed b-bit slot, and the values that do
// not fit (exceptions) keep their high bits and their positions in two
// separate arrays, each compressed again by PForDelta. Unlike the linked
// exceptions of the CPU versions, the slots stay uniform: decoding is one
// fixed-width unpack (the vectorized kernel of bit_packing.hpp) and then a
// patch of the few exceptions.
//
// Given a whole list, that is Ding's "one b per list" (block k's slots are at
// a fixed offset, 16·b·k bytes); given blocks of 128, one b per block.
//
// Bytes of one level: one byte b | 0x80 if there are exceptions (b is
// 0..32), then only if there are, their number e (variable-byte,
// store/run_list.hpp); the n slots (bit_packing.hpp layout); then,
// when e > 0, the level of the e high parts (value >> b) and the level of the
// e position gaps (first position, then the difference minus one). Ding found one level of recursion enough; the exception arrays'
// own exceptions (third level) are packed at the width of their largest value.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace invidx::codecs {

struct PForDelta {
    static constexpr std::string_view kName = "pfor";
    static constexpr std::string_view kDescription =
        "PForDelta: one b for 90% of the values, exceptions in separate recursively compressed arrays (Ding et al. 2009)";

    static constexpr unsigned kLevels = 3;        // the values, their exceptions, those exceptions'
    static constexpr unsigned kFitPercent = 90;   // share of values that b must hold

    static void encode(std::span<const uint32_t> values, std::string& out);
    static void decode(std::string_view bytes, std::span<uint32_t> decoded);

    // The slot width b chosen for these values at the first level.
    static uint32_t slot_bits(std::span<const uint32_t> values);
};

}  // namespace invidx::codecs
