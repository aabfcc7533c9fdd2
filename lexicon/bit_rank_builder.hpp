// Builds a BitRankView's arrays (lexicon/bit_rank.hpp) into a flat buffer.
#pragma once

#include <vector>

#include "lexicon/bit_rank.hpp"
#include "lexicon/flat_buffer.hpp"

namespace invidx::lexicon {

// bits.size() < 2^32 (an Error otherwise).
BitRankSections append_bit_rank(FlatBuffer& buffer, const std::vector<bool>& bits);

}  // namespace invidx::lexicon
