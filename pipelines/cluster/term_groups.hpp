// A collection slice's postings grouped by term, for the postings wire
// (postings_wire.hpp): the wire writes a term's bytes once per slice and then
// its postings, so the encoder needs, per distinct term, which occurrences
// name it. A slice holds a collection's occurrences in increasing docid order,
// and a term belongs to exactly one collection, so grouping slice by slice
// finds every repetition of a term in the batch.
//
// Terms are told apart by an open-addressing table keyed by a term's first
// eight bytes (read as one word) and its length, which settle most
// comparisons without a memcmp; the occurrences are then put in group order
// by a counting sort (stable: each term's docids still increase). Groups are
// numbered in the order of their term's first occurrence. Every array is
// kept between slices, so grouping allocates only while the largest slice so
// far grows.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "invidx/messages.hpp"

namespace invidx::postings_wire {

class TermGroups {
public:
    // Groups `occurrences` (one slice's), whose term bytes are in `terms`.
    void group(std::span<const TermOccurrence> occurrences, std::string_view terms);

    uint32_t groups() const { return groups_; }
    // Index (in the slice) of the first occurrence of group g's term.
    uint32_t first(uint32_t g) const { return order_[starts_[g]]; }
    // Group g's occurrences, indexes in the slice, increasing.
    std::span<const uint32_t> members(uint32_t g) const {
        return std::span<const uint32_t>(order_.data() + starts_[g], starts_[g + 1] - starts_[g]);
    }

private:
    // Most slices hold a few occurrences: up to this many, each is compared
    // with the groups so far, which costs less than clearing a table.
    static constexpr uint32_t kFewOccurrences = 8;

    // All zero when empty, so the table is cleared with a memset.
    struct Slot {
        uint64_t head;            // the term's first 8 bytes, zero past its end
        uint32_t length;
        uint32_t group_plus_one;  // 0: empty
    };

    // Both set group_of_, first_of_ and the group sizes (starts_[g + 1]);
    // they return the number of groups.
    uint32_t group_few(std::span<const TermOccurrence> occurrences, std::string_view terms);
    uint32_t group_hashed(std::span<const TermOccurrence> occurrences, std::string_view terms);

    // Sized for the largest slice so far and never shrunk, so that grouping
    // a slice writes through plain pointers and allocates nothing.
    uint32_t groups_ = 0;
    std::vector<Slot> table_;
    std::vector<uint32_t> group_of_;     // per occurrence
    std::vector<uint32_t> first_of_;     // per group: its first occurrence
    std::vector<uint32_t> starts_;       // per group, into order_; one more at the end
    std::vector<uint32_t> order_;        // occurrences, group by group
};

}  // namespace invidx::postings_wire
