// Document analysis (CONTENT.md §3-7) as two passes over flat arrays, one
// implementation for host and device: GPU parsing runs them per document in
// its kernels, and the host runs the very same functions as the reference the
// CPU tests hold against Analyzer::analyze. Together they give what
// Analyzer::analyze gives: unique terms in order of first occurrence with tf,
// CONTENT.md §8 collection and positions.
//
//  1. collect_document_tokens: tokens (CONTENT.md §3-4, for_each_token.hpp), stop
//     words dropped (§4.1, positions still counted), the rest stemmed (§4.2).
//     Each kept term is written over its token's place in a byte array that
//     parallels the text (a stem is never longer than its token, and tokens
//     do not overlap), so no output cursor is needed and the output bytes are
//     bounded by the input bytes.
//  2. group_document_terms: terms grouped through an open-addressing table,
//     tf counted, positions laid out per term in increasing order.
//
// No C++ runtime; every function is INVIDX_HOST_DEVICE.
#pragma once

#include <cstdint>

#include "analysis/porter.hpp"
#include "analysis/stopword_table.hpp"
#include "analysis/term_collection.hpp"
#include "analysis/token_bytes.hpp"
#include "analysis/for_each_token.hpp"
#include "invidx/host_device.hpp"

namespace invidx::document_passes {

// One indexed token (not a stop word) of pass 1.
struct TermOccurrence {
    uint32_t start;     // of the token in the document; its term's bytes are there in the term byte array
    uint32_t length;    // of the term (stemmed)
    uint32_t position;  // CONTENT.md §4: counts every kept token, stop words included
};

// One unique term of pass 2, laid out like DocumentTerms::Term.
struct GroupedTerm {
    uint32_t start;  // of its first occurrence's term bytes in the document
    uint32_t length;
    uint32_t tf;
    uint32_t collection;
    uint32_t first_position_index;  // into the document's positions (0 unless positional)
};

// One unique term of a whole batch, in the batch's own layout (what the
// parse node hands on: include/invidx/messages.hpp's TermOccurrence, field
// for field): documents in order, each one's terms in order of first
// occurrence, bytes and positions at batch-wide offsets.
struct BatchTerm {
    uint32_t local_docid;
    uint32_t collection;
    uint32_t term_offset;       // into the batch's term bytes
    uint32_t term_length;
    uint32_t tf;
    uint32_t positions_offset;  // into the batch's positions (0 unless positional)
};

struct TokenCounts {
    uint32_t indexed;  // occurrences written (tokens that are not stop words)
    uint32_t tokens;   // kept tokens, stop words included: the positions used
};

// Most tokens a document of `length` bytes can hold: each takes at least one
// byte and is followed by a separator, but the last.
INVIDX_HOST_DEVICE constexpr uint64_t token_bound(uint64_t length) { return (length + 1) / 2; }

// Slots of pass 2's table for `indexed` occurrences: a power of two at least
// twice as many, so the load stays at most 1/2 (0 for none).
INVIDX_HOST_DEVICE constexpr uint64_t table_slots(uint64_t indexed) {
    if (indexed == 0) return 0;
    uint64_t slots = 2;
    while (slots < 2 * indexed) slots *= 2;
    return slots;
}

// Pass 1 over the `length` bytes of `text`. Writes the terms into
// `term_bytes` (parallel to `text`: room for `length` bytes) and the
// occurrences, in order, into `occurrences` (room for token_bound(length)).
INVIDX_HOST_DEVICE inline TokenCounts collect_document_tokens(const unsigned char* text, uint32_t length, bool html,
                                                              const StopwordTable& stopwords, bool stem,
                                                              unsigned char* term_bytes,
                                                              TermOccurrence* occurrences) {
    TokenCounts counts{0, 0};
    for_each_token(text, length, html, [&](const unsigned char* token, uint32_t token_length, uint32_t start) {
        const uint32_t position = counts.tokens++;
        if (stopwords.contains(token, token_length)) return;  // CONTENT.md §5: before stemming
        unsigned char* const term = term_bytes + start;
        for (uint32_t i = 0; i < token_length; ++i) term[i] = token[i];
        if (stem) token_length = porter_stem_in_place(term, token_length);
        occurrences[counts.indexed++] = TermOccurrence{start, token_length, position};
    });
    return counts;
}

// 64-bit FNV-1a: pass 2's table hash (terms are short; it needs no tables).
INVIDX_HOST_DEVICE inline uint64_t term_table_hash(const unsigned char* term, uint32_t length) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t i = 0; i < length; ++i) h = (h ^ term[i]) * 0x100000001b3ull;
    return h;
}

INVIDX_HOST_DEVICE inline bool same_term(const unsigned char* term_bytes, uint32_t a, uint32_t b, uint32_t length) {
    for (uint32_t i = 0; i < length; ++i) {
        if (term_bytes[a + i] != term_bytes[b + i]) return false;
    }
    return true;
}

// Pass 2 over one document's `indexed` occurrences from pass 1 (`term_bytes`
// is its term byte array). `table` has table_slots(indexed) entries, all 0
// on entry; `occurrence_terms` (scratch), `terms` and `positions` have room
// for `indexed` entries. Returns the number of unique terms written to
// `terms`, in order of first occurrence; with `positional`, each one's tf
// positions are at positions[first_position_index...], increasing.
INVIDX_HOST_DEVICE inline uint32_t group_document_terms(const unsigned char* term_bytes,
                                                        const TermOccurrence* occurrences, uint32_t indexed,
                                                        uint32_t* table, bool positional,
                                                        uint32_t* occurrence_terms, GroupedTerm* terms,
                                                        uint32_t* positions) {
    const uint64_t mask = table_slots(indexed) - 1;
    uint32_t unique = 0;
    for (uint32_t i = 0; i < indexed; ++i) {
        const TermOccurrence occurrence = occurrences[i];
        uint64_t slot = term_table_hash(term_bytes + occurrence.start, occurrence.length) & mask;
        uint32_t index = 0;
        for (;; slot = (slot + 1) & mask) {
            if (table[slot] == 0) {  // a new term
                index = unique++;
                table[slot] = index + 1;
                terms[index] = GroupedTerm{occurrence.start, occurrence.length, 0,
                                           term_collection(term_bytes + occurrence.start, occurrence.length), 0};
                break;
            }
            const GroupedTerm& known = terms[table[slot] - 1];
            if (known.length == occurrence.length &&
                same_term(term_bytes, known.start, occurrence.start, occurrence.length)) {
                index = table[slot] - 1;
                break;
            }
        }
        ++terms[index].tf;
        occurrence_terms[i] = index;
    }
    if (!positional) return unique;
    // Each term's range starts after the ranges of the terms before it; the
    // field serves as the term's cursor while occurrences (in position
    // order) are placed, and is moved back to the range's start after.
    uint32_t next = 0;
    for (uint32_t k = 0; k < unique; ++k) {
        terms[k].first_position_index = next;
        next += terms[k].tf;
    }
    for (uint32_t i = 0; i < indexed; ++i) positions[terms[occurrence_terms[i]].first_position_index++] = occurrences[i].position;
    for (uint32_t k = 0; k < unique; ++k) terms[k].first_position_index -= terms[k].tf;
    return unique;
}

}  // namespace invidx::document_passes
