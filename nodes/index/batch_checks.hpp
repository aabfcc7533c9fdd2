// What every indexer checks before it trusts a regrouped batch: a wrong
// batch is an error naming the batch and docid, never a corrupt index.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "analysis/collection.hpp"  // collection_prefix
#include "invidx/messages.hpp"

namespace invidx::detail {
inline constexpr uint32_t kMaxTermBytes = 255;  // SPEC §4
}

namespace invidx {

// Throws invidx::Error (node "index") for batch `batch.sequence`.
[[noreturn]] void fail_batch(const RegroupedBatch& batch, const std::string& message);

// The slice names a collection and lies inside the batch's occurrences.
void check_slice(const RegroupedBatch& batch, const CollectionSlice& slice);

// Occurrence i of the slice is well formed (its collection, document, term
// bytes of at most 255 carrying the collection's prefix, tf > 0, positions
// when positional); returns its docid. term receives the full term.
// Inline: it runs once per posting in every indexer's hot loop.
inline uint32_t check_occurrence(const RegroupedBatch& batch, const CollectionSlice& slice, uint32_t i,
                          std::string_view prefix, bool positional, std::string_view& term) {
    const TermOccurrence& occurrence = batch.occurrences[i];
    const uint64_t docid = batch.first_docid + occurrence.local_docid;
    // Built only when a check fails: this runs once per posting.
    const auto at = [docid] { return "docid " + std::to_string(docid) + ": "; };
    if (occurrence.collection != slice.collection) [[unlikely]] {
        fail_batch(batch, "occurrence " + std::to_string(i) + " of collection " +
                              std::to_string(occurrence.collection) + " lies in the slice of " +
                              std::to_string(slice.collection));
    }
    if (occurrence.local_docid >= batch.docs.size()) [[unlikely]] {
        fail_batch(batch, "occurrence " + std::to_string(i) + " names local docid " +
                              std::to_string(occurrence.local_docid) + " of " + std::to_string(batch.docs.size()) +
                              " documents");
    }
    if (docid > UINT32_MAX) [[unlikely]] fail_batch(batch, at() + "docids above 2^32-1 are not supported");
    if (uint64_t{occurrence.term_offset} + occurrence.term_length > batch.terms.size()) [[unlikely]] {
        fail_batch(batch, at() + "term bytes run past the batch's term arena");
    }
    if (occurrence.term_length > detail::kMaxTermBytes) [[unlikely]] fail_batch(batch, at() + "term longer than 255 bytes");
    if (occurrence.tf == 0) [[unlikely]] fail_batch(batch, at() + "occurrence with tf 0");
    term = std::string_view(batch.terms.data() + occurrence.term_offset, occurrence.term_length);
    if (!prefix.empty() && (term.size() < 4 || term.substr(0, 3) != prefix)) [[unlikely]] {
        fail_batch(batch, at() + "term '" + std::string(term) + "' does not belong to collection " +
                              std::to_string(slice.collection) + " (prefix '" + std::string(prefix) + "')");
    }
    if (positional && uint64_t{occurrence.positions_offset} + occurrence.tf > batch.positions.size()) [[unlikely]] {
        fail_batch(batch, at() + "positions run past the batch's position arena");
    }
    return static_cast<uint32_t>(docid);
}


}  // namespace invidx
