// Builds the static hash table of a dictionary (lexicon/hashed_terms.hpp) on
// the host: terms in strictly increasing byte-wise order, index = position.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "lexicon/flat_buffer.hpp"
#include "lexicon/hashed_terms.hpp"

namespace invidx::lexicon {

// Slots per term: a load of 0.75 keeps linear probing short (about 2.5
// slots for a hit, 8.5 for a miss, all within a line or two) at 10.7 slot
// bytes a term.
inline constexpr double kHashedTermsLoad = 0.75;

class HashedTerms {
public:
    // At most about 3.2 G terms (their slots numbered by a u32) of fewer
    // than 2^32 bytes in all; an Error otherwise or when the terms are not
    // strictly increasing.
    HashedTerms(uint64_t count, const std::function<std::string_view(uint64_t)>& term);
    explicit HashedTerms(const std::vector<std::string_view>& terms);

    HashedTermsView view() const { return sections_.view(buffer_.words().data()); }
    const HashedTermsSections& sections() const { return sections_; }
    const std::vector<uint64_t>& buffer() const { return buffer_.words(); }
    uint64_t bytes() const { return buffer_.bytes(); }
    uint64_t term_count() const { return sections_.term_count; }

private:
    FlatBuffer buffer_;
    HashedTermsSections sections_;
};

}  // namespace invidx::lexicon
