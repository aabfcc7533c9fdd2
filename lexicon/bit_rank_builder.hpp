// Builds a BitRankView's arrays (lexicon/bit_rank.hpp) into a flat buffer.
#pragma once

#include <vector>

#include "lexicon/bit_rank.hpp"
#include "lexicon/flat_buffer.hpp"

namespace invidx::lexicon {

enum class SelectSupport { none, ones };

// bits.size() < 2^32 (an Error otherwise). With SelectSupport::ones the
// view's select1 works (its samples are stored); without, it must not be called.
BitRankSections append_bit_rank(FlatBuffer& buffer, const std::vector<bool>& bits, SelectSupport select = SelectSupport::none);

}  // namespace invidx::lexicon
