// Pass 2 of document analysis (document_passes.hpp: group_document_terms)
// cut into steps of one GPU thread per occurrence instead of one per
// document, with the same result. One implementation for host and device:
// the kernels (devices/cuda/analysis/analysis_kernels.cuh) call these functions
// with atomic operations, the CPU tests call them in loops with plain ones.
//
// The occurrences of the batch are numbered compactly, document after
// document (`begin`: each document's first, documents + 1 entries), as
// pass 2's output regions are. Why it is exact:
//  1. Every occurrence inserts its term into its document's open-addressing
//     table (table_slots() slots, load at most 1/2): the first thread to
//     claim an empty slot stores its occurrence there; one meeting the same
//     term stops there. Per slot, the smallest occurrence index (the term's
//     first occurrence) and the count (tf) are kept with atomic min and add,
//     so the order threads run in does not matter.
//  2. An occurrence is its term's first when the slot's minimum is its own
//     index. Terms in order of first occurrence are then the first
//     occurrences in occurrence order: an exclusive scan over "is first"
//     numbers them, and one over "tf if first" gives each term's first
//     position index (the tf of the terms before it).
//  3. With positions, a stable sort of the occurrences' positions by their
//     term's batch-wide number puts each term's positions together, in
//     increasing order, terms in order and documents in order: exactly the
//     positions array's layout.
#pragma once

#include <cstdint>

#include "analysis/document_passes.hpp"
#include "analysis/term_collection.hpp"
#include "invidx/host_device.hpp"

namespace invidx::parallel_group_pass {

inline constexpr uint32_t kNoOccurrence = 0xFFFFFFFFu;

// Pass 2's inputs, as the steps see them. Document d's occurrences are
// occurrences[occurrence_begin[d] + j] for j < begin[d + 1] - begin[d], its
// terms' bytes at term_bytes + offsets[d] + start, its table
// table[table_begin[d], table_begin[d + 1]).
struct GroupView {
    const unsigned char* term_bytes = nullptr;
    const uint64_t* offsets = nullptr;
    const uint64_t* occurrence_begin = nullptr;
    const document_passes::TermOccurrence* occurrences = nullptr;
    const uint64_t* begin = nullptr;        // documents + 1: compact occurrence numbering
    const uint64_t* table_begin = nullptr;  // documents + 1
    uint32_t documents = 0;
};

// The document of compact occurrence `g`: the last d with begin[d] <= g
// among documents that have occurrences.
INVIDX_HOST_DEVICE inline uint32_t document_of_occurrence(const GroupView& view, uint64_t g) {
    uint32_t low = 0, high = view.documents;  // first d with begin[d + 1] > g
    while (low < high) {
        const uint32_t middle = low + (high - low) / 2;
        if (view.begin[middle + 1] <= g) low = middle + 1;
        else high = middle;
    }
    return low;
}

INVIDX_HOST_DEVICE inline const document_passes::TermOccurrence& occurrence(const GroupView& view, uint32_t d,
                                                                            uint64_t j) {
    return view.occurrences[view.occurrence_begin[d] + j];
}

INVIDX_HOST_DEVICE inline const unsigned char* term_of(const GroupView& view, uint32_t d,
                                                      const document_passes::TermOccurrence& o) {
    return view.term_bytes + view.offsets[d] + o.start;
}

// Step 1 for compact occurrence `g`: inserts its term and returns its
// slot's index in the batch's table. `table` is all 0, `first` all
// kNoOccurrence and `tf` all 0 before the first insertion. Atomics gives
// compare_and_swap(p, expected, desired) -> previous, min(p, v), add(p, v).
template <class Atomics>
INVIDX_HOST_DEVICE uint64_t insert_occurrence(const GroupView& view, uint64_t g, uint32_t* table, uint32_t* first,
                                              uint32_t* tf) {
    const uint32_t d = document_of_occurrence(view, g);
    const auto j = static_cast<uint32_t>(g - view.begin[d]);
    const document_passes::TermOccurrence& mine = occurrence(view, d, j);
    const unsigned char* const term = term_of(view, d, mine);
    const uint64_t base = view.table_begin[d];
    const uint64_t mask = view.table_begin[d + 1] - base - 1;
    uint64_t slot = document_passes::term_table_hash(term, mine.length) & mask;
    for (;; slot = (slot + 1) & mask) {
        uint32_t held = table[base + slot];
        if (held == 0) {
            held = Atomics::compare_and_swap(&table[base + slot], 0u, j + 1);
            if (held == 0) break;  // claimed
        }
        const document_passes::TermOccurrence& other = occurrence(view, d, held - 1);
        if (other.length == mine.length) {
            const unsigned char* const known = term_of(view, d, other);
            uint32_t i = 0;
            while (i < mine.length && known[i] == term[i]) ++i;
            if (i == mine.length) break;
        }
    }
    Atomics::min(&first[base + slot], j);
    Atomics::add(&tf[base + slot], 1u);
    return base + slot;
}

// Step 2's inputs for compact occurrence `g`: 1 when it is its term's
// first occurrence, and then its term's tf (0 otherwise).
INVIDX_HOST_DEVICE inline void first_occurrence_flags(const GroupView& view, uint64_t g, const uint64_t* slot_of,
                                                      const uint32_t* first, const uint32_t* tf, uint32_t* is_first,
                                                      uint32_t* first_tf) {
    const uint32_t d = document_of_occurrence(view, g);
    const auto j = static_cast<uint32_t>(g - view.begin[d]);
    const bool its_first = first[slot_of[g]] == j;
    is_first[g] = its_first ? 1 : 0;
    first_tf[g] = its_first ? tf[slot_of[g]] : 0;
}

// Step 2's output, in the batch's own layout (document_passes::BatchTerm),
// which the parse node hands on as it is, with no packing per term:
// `first_length` is the scan input that places the terms' bytes (the term's
// length at its first occurrence, 0 elsewhere); `write_batch_term` writes
// first occurrence g's term at its batch-wide number unique_before[g] and
// its bytes at bytes_before[g] of `arena` (the exclusive scan of
// first_length). tf_before[g] is then where its positions start.
INVIDX_HOST_DEVICE inline uint32_t first_length(const GroupView& view, uint64_t g, const uint32_t* is_first) {
    if (is_first[g] == 0) return 0;
    const uint32_t d = document_of_occurrence(view, g);
    return occurrence(view, d, g - view.begin[d]).length;
}

INVIDX_HOST_DEVICE inline void write_batch_term(const GroupView& view, uint64_t g, const uint64_t* slot_of,
                                                const uint32_t* tf, const uint32_t* is_first,
                                                const uint32_t* unique_before, const uint32_t* tf_before,
                                                const uint32_t* bytes_before, bool positional,
                                                document_passes::BatchTerm* terms, unsigned char* arena) {
    if (is_first[g] == 0) return;
    const uint32_t d = document_of_occurrence(view, g);
    const document_passes::TermOccurrence& o = occurrence(view, d, g - view.begin[d]);
    const unsigned char* const term = term_of(view, d, o);
    terms[unique_before[g]] = document_passes::BatchTerm{d, term_collection(term, o.length), bytes_before[g], o.length,
                                                         tf[slot_of[g]], positional ? tf_before[g] : 0};
    unsigned char* const out = arena + bytes_before[g];
    for (uint32_t i = 0; i < o.length; ++i) out[i] = term[i];
}

// Step 3's sort key of compact occurrence `g`: its term's number in the
// batch (the number of first occurrences before the term's first).
INVIDX_HOST_DEVICE inline uint32_t term_number(const GroupView& view, uint64_t g, const uint64_t* slot_of,
                                               const uint32_t* first, const uint32_t* unique_before) {
    const uint32_t d = document_of_occurrence(view, g);
    return unique_before[view.begin[d] + first[slot_of[g]]];
}

INVIDX_HOST_DEVICE inline uint32_t unique_terms(const GroupView& view, const uint32_t* unique_before, uint32_t d) {
    return unique_before[view.begin[d + 1]] - unique_before[view.begin[d]];
}

}  // namespace invidx::parallel_group_pass
