#include "pipelines/cluster/term_groups.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

namespace invidx::postings_wire {
namespace {

// Eight bytes of `arena` from `offset`, of which the first `count` (<= 8)
// kept and the rest zero. One unaligned load, except within eight bytes of
// the arena's end, where reading a whole word would run past it.
uint64_t word_at(std::string_view arena, size_t offset, size_t count) {
    uint64_t word = 0;
    if (offset + 8 > arena.size()) {
        std::memcpy(&word, arena.data() + offset, count);
        return word;
    }
    std::memcpy(&word, arena.data() + offset, 8);
    if (count >= 8) return word;
    const uint64_t keep = (uint64_t{1} << (8 * count)) - 1;
    return word & (std::endian::native == std::endian::little ? keep : ~(~uint64_t{0} >> (8 * count)));
}

uint64_t mix(uint64_t h) {
    h ^= h >> 32;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 29);
}

// A term's hash: its head word and length, then eight bytes a multiply for
// the rest of a long term.
uint64_t hash_term(std::string_view arena, uint64_t head, uint32_t offset, uint32_t length) {
    uint64_t h = (head + length) * 0x9E3779B97F4A7C15ull;
    for (uint32_t at = 8; at < length; at += 8)
        h = (h ^ word_at(arena, offset + at, std::min<uint32_t>(8, length - at))) * 0x94d049bb133111ebull;
    return mix(h);
}

// Whether two terms whose first 8 bytes and lengths are equal are equal.
bool same_tail(std::string_view terms, const TermOccurrence& a, const TermOccurrence& b) {
    return a.term_length <= 8 ||
           std::memcmp(terms.data() + a.term_offset + 8, terms.data() + b.term_offset + 8, a.term_length - 8) == 0;
}

}  // namespace

void TermGroups::group(std::span<const TermOccurrence> occurrences, std::string_view terms) {
    const auto count = static_cast<uint32_t>(occurrences.size());
    if (starts_.size() <= count) {
        order_.resize(count);
        group_of_.resize(count);
        first_of_.resize(count);
        starts_.resize(size_t{count} + 1);
    }
    starts_[0] = 0;
    if (count <= 1) {
        groups_ = count;
        if (count == 1) order_[0] = 0, starts_[1] = 1;
        return;
    }
    groups_ = count <= kFewOccurrences ? group_few(occurrences, terms) : group_hashed(occurrences, terms);

    // Counting sort: sizes to starts, then each occurrence to its group's
    // next place, in slice order (stable).
    uint32_t* const starts = starts_.data();
    for (uint32_t g = 1; g <= groups_; ++g) starts[g] += starts[g - 1];
    uint32_t* const next = first_of_.data();  // no longer needed: reused
    std::copy(starts, starts + groups_, next);
    uint32_t* const order = order_.data();
    const uint32_t* const group_of = group_of_.data();
    for (uint32_t i = 0; i < count; ++i) order[next[group_of[i]]++] = i;
}

uint32_t TermGroups::group_few(std::span<const TermOccurrence> occurrences, std::string_view terms) {
    uint64_t heads[kFewOccurrences];
    uint32_t groups = 0;
    uint32_t* const sizes = starts_.data() + 1;
    for (uint32_t i = 0; i < occurrences.size(); ++i) {
        const TermOccurrence& o = occurrences[i];
        const uint64_t head = word_at(terms, o.term_offset, std::min<uint32_t>(8, o.term_length));
        uint32_t g = 0;
        while (g < groups && !(heads[g] == head && occurrences[first_of_[g]].term_length == o.term_length &&
                               same_tail(terms, o, occurrences[first_of_[g]])))
            ++g;
        if (g == groups) {
            heads[g] = head;
            first_of_[g] = i;
            sizes[g] = 0;
            ++groups;
        }
        group_of_[i] = g;
        ++sizes[g];
    }
    return groups;
}

uint32_t TermGroups::group_hashed(std::span<const TermOccurrence> occurrences, std::string_view terms) {
    const auto count = static_cast<uint32_t>(occurrences.size());
    size_t capacity = 16;
    while (capacity < 2 * size_t{count}) capacity *= 2;  // at most half full: short probes
    const size_t mask = capacity - 1;
    if (table_.size() < capacity) table_.resize(capacity);
    std::memset(table_.data(), 0, capacity * sizeof(Slot));
    Slot* const table = table_.data();
    uint32_t* const group_of = group_of_.data();
    uint32_t* const first_of = first_of_.data();
    uint32_t* const sizes = starts_.data() + 1;
    uint32_t groups = 0;
    for (uint32_t i = 0; i < count; ++i) {
        const TermOccurrence& o = occurrences[i];
        const uint64_t head = word_at(terms, o.term_offset, std::min<uint32_t>(8, o.term_length));
        uint32_t group;
        for (size_t s = hash_term(terms, head, o.term_offset, o.term_length) & mask;; s = (s + 1) & mask) {
            Slot& slot = table[s];
            if (slot.group_plus_one == 0) {
                group = groups++;
                slot = Slot{head, o.term_length, groups};
                first_of[group] = i;
                sizes[group] = 0;
                break;
            }
            group = slot.group_plus_one - 1;
            if (slot.head == head && slot.length == o.term_length && same_tail(terms, o, occurrences[first_of[group]]))
                break;
        }
        group_of[i] = group;
        ++sizes[group];
    }
    return groups;
}

}  // namespace invidx::postings_wire
