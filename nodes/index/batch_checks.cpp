#include "nodes/index/batch_checks.hpp"

#include "invidx/error.hpp"

namespace invidx {

void fail_batch(const RegroupedBatch& batch, const std::string& message) {
    throw Error("batch " + std::to_string(batch.sequence) + ": " + message,
                ErrorContext{.node = "index", .file = {}, .record = {}, .byte_offset = {}});
}

void check_slice(const RegroupedBatch& batch, const CollectionSlice& slice) {
    if (slice.collection >= kCollections) {
        fail_batch(batch, "slice names collection " + std::to_string(slice.collection) + ", out of range");
    }
    if (slice.begin > slice.end || slice.end > batch.occurrences.size()) {
        fail_batch(batch, "slice of collection " + std::to_string(slice.collection) +
                              " runs past the batch's occurrences");
    }
}

void fail_occurrence(const RegroupedBatch& batch, const CollectionSlice& slice, uint32_t i, std::string_view prefix,
                     bool positional) {
    const TermOccurrence& occurrence = batch.occurrences[i];
    const uint64_t docid = batch.first_docid + occurrence.local_docid;
    const auto at = [docid] { return "docid " + std::to_string(docid) + ": "; };
    if (occurrence.collection != slice.collection) {
        fail_batch(batch, "occurrence " + std::to_string(i) + " of collection " +
                              std::to_string(occurrence.collection) + " lies in the slice of " +
                              std::to_string(slice.collection));
    }
    if (occurrence.local_docid >= batch.docs.size()) {
        fail_batch(batch, "occurrence " + std::to_string(i) + " names local docid " +
                              std::to_string(occurrence.local_docid) + " of " + std::to_string(batch.docs.size()) +
                              " documents");
    }
    if (docid > UINT32_MAX) fail_batch(batch, at() + "docids above 2^32-1 are not supported");
    if (uint64_t{occurrence.term_offset} + occurrence.term_length > batch.terms.size()) {
        fail_batch(batch, at() + "term bytes run past the batch's term arena");
    }
    if (occurrence.term_length > detail::kMaxTermBytes) fail_batch(batch, at() + "term longer than 255 bytes");
    if (occurrence.tf == 0) fail_batch(batch, at() + "occurrence with tf 0");
    const std::string_view term(batch.terms.data() + occurrence.term_offset, occurrence.term_length);
    if (!prefix.empty() && (term.size() < 4 || term.substr(0, 3) != prefix)) {
        fail_batch(batch, at() + "term '" + std::string(term) + "' does not belong to collection " +
                              std::to_string(slice.collection) + " (prefix '" + std::string(prefix) + "')");
    }
    if (positional && uint64_t{occurrence.positions_offset} + occurrence.tf > batch.positions.size()) {
        fail_batch(batch, at() + "positions run past the batch's position arena");
    }
    fail_batch(batch, "occurrence " + std::to_string(i) + " failed a check that fail_occurrence does not know");
}

}  // namespace invidx
