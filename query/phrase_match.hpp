// Whether a document holds a phrase (docs/QUERY.md, "Phrases"): some start
// s with each phrase term j at s + offset j. Shared by query/phrase_search.hpp
// (phrases as filters) and query/clause_tree_search.hpp (phrases as clauses).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "query/phrase_query.hpp"
#include "store/run_list.hpp"

namespace invidx {

// One term's postings with positions, and where each posting's positions
// start in the concatenated array (the prefix sums of tf).
struct PositionalPostings {
    run_list::DecodedList postings;
    std::vector<uint64_t> starts;

    explicit PositionalPostings(run_list::DecodedList decoded) : postings(std::move(decoded)) {
        starts.resize(postings.tfs.size());
        uint64_t start = 0;
        for (size_t p = 0; p < postings.tfs.size(); ++p) {
            starts[p] = start;
            start += postings.tfs[p];
        }
    }

    std::span<const uint32_t> positions(size_t posting) const {
        return std::span<const uint32_t>(postings.positions).subspan(starts[posting], postings.tfs[posting]);
    }
};

// True if `phrase` occurs in a document whose positions of phrase term j are
// positions_of(j) (increasing). The term with the fewest positions anchors
// the search; the others are binary-searched.
template <typename PositionsOf>
bool phrase_occurs(const Phrase& phrase, PositionsOf&& positions_of) {
    const auto& terms = phrase.terms;
    size_t anchor = 0;
    for (size_t j = 1; j < terms.size(); ++j) {
        if (positions_of(j).size() < positions_of(anchor).size()) anchor = j;
    }
    for (const uint32_t position : positions_of(anchor)) {
        if (position < terms[anchor].offset) continue;  // the phrase would start before the document
        const uint64_t start = position - terms[anchor].offset;
        bool all = true;
        for (size_t j = 0; j < terms.size() && all; ++j) {
            if (j == anchor) continue;
            const uint64_t target = start + terms[j].offset;
            const std::span<const uint32_t> positions = positions_of(j);
            all = target <= std::numeric_limits<uint32_t>::max() &&
                  std::binary_search(positions.begin(), positions.end(), static_cast<uint32_t>(target));
        }
        if (all) return true;
    }
    return false;
}

}  // namespace invidx
