// What a partition-and-index cluster build sends between ranks: the part of
// one regrouped batch that another rank's indexers own (docs/FORMAT.md,
// "Cluster builds"). Parsed postings only, never raw text: for each owned
// collection slice its postings grouped by term, each term's bytes written
// once followed by its postings (rank-local docid gaps, tfs, position gaps),
// integers as variable-byte codes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "invidx/messages.hpp"

namespace invidx::postings_wire {

// The first byte of every message between ranks: a batch, the source's
// last batch (its end_of_input one, so a receiver knows it without decoding),
// or the end of a source's stream (its parsing succeeded or failed), sent
// after its last batch.
inline constexpr char kBatchMessage = 'B';
inline constexpr char kLastBatchMessage = 'L';
inline constexpr char kEndOk = 'E';
inline constexpr char kEndFailed = 'F';

inline bool is_batch_message(std::string_view message) {
    return !message.empty() && (message[0] == kBatchMessage || message[0] == kLastBatchMessage);
}

// Appends a batch message: the slices of `batch` whose collection `owner_rank` gives to
// `destination` (owner_rank: kCollections entries), with the batch's
// sequence, first docid, document count, text bytes and end flag, so the
// receiver can index them exactly as if the batch were its own. A batch
// with no such slice still makes a message: the receiver's runs are cut and
// ordered by batch sequence, which must stay consecutive.
void encode_batch(const RegroupedBatch& batch, const std::vector<uint32_t>& owner_rank, uint32_t destination,
                  bool positional, std::string& out);

// The batch's messages for every rank at once (one pass over the batch, not
// one per destination): out[r] is what encode_batch would append for r,
// for each r < out.size() but `self`, whose entry is left as it is.
void encode_batches(const RegroupedBatch& batch, const std::vector<uint32_t>& owner_rank, uint32_t self,
                    bool positional, std::vector<std::string>& out);

// The batch back from a whole batch message: empty documents (only their
// count matters to an indexer), each slice's occurrences grouped by term
// (in the order of the terms' first occurrence in the batch), each term's in
// increasing docids. Throws invidx::Error
// (naming `source`) on a malformed message.
RegroupedBatch decode_batch(std::string_view bytes, bool positional, int source);

}  // namespace invidx::postings_wire
