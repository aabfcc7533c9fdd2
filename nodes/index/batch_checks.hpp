// What every indexer checks before it trusts a regrouped batch: a wrong
// batch is an error naming the batch and docid, never a corrupt index.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "analysis/collection.hpp"  // collection_prefix
#include "invidx/messages.hpp"

namespace invidx::detail {
inline constexpr uint32_t kMaxTermBytes = 255;  // CONTENT.md §5-7
}

namespace invidx {

// Throws invidx::Error (node "index") for batch `batch.sequence`.
[[noreturn]] void fail_batch(const RegroupedBatch& batch, const std::string& message);

// The slice names a collection and lies inside the batch's occurrences.
void check_slice(const RegroupedBatch& batch, const CollectionSlice& slice);

// Throws invidx::Error (node "index") naming the first thing wrong with
// occurrence i of the slice, in the order check_occurrence states them.
// Out of line and cold: only a bad batch gets here.
[[noreturn, gnu::cold]] void fail_occurrence(const RegroupedBatch& batch, const CollectionSlice& slice, uint32_t i,
                                             std::string_view prefix, bool positional);

// Occurrence i of the slice is well formed (its collection, document, term
// bytes of at most 255 carrying the collection's prefix, tf > 0, positions
// when positional); returns its docid. term receives the full term.
// Inline, and every check folded into one branch: it runs once per posting
// in every indexer's hot loop; the messages are made by fail_occurrence.
inline uint32_t check_occurrence(const RegroupedBatch& batch, const CollectionSlice& slice, uint32_t i,
                          std::string_view prefix, bool positional, std::string_view& term) {
    const TermOccurrence& occurrence = batch.occurrences[i];
    const uint64_t docid = batch.first_docid + occurrence.local_docid;
    const bool well_formed =
        (occurrence.collection == slice.collection) & (occurrence.local_docid < batch.docs.size()) &
        (docid <= UINT32_MAX) &
        (uint64_t{occurrence.term_offset} + occurrence.term_length <= batch.terms.size()) &
        (occurrence.term_length <= detail::kMaxTermBytes) & (occurrence.tf != 0) &
        (!positional || uint64_t{occurrence.positions_offset} + occurrence.tf <= batch.positions.size());
    if (!well_formed) [[unlikely]] fail_occurrence(batch, slice, i, prefix, positional);
    term = std::string_view(batch.terms.data() + occurrence.term_offset, occurrence.term_length);
    if (!prefix.empty() && (term.size() < 4 || term.substr(0, 3) != prefix)) [[unlikely]] {
        fail_occurrence(batch, slice, i, prefix, positional);
    }
    return static_cast<uint32_t>(docid);
}

}  // namespace invidx
