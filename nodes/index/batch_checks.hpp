// What every indexer checks before it trusts a regrouped batch: a wrong
// batch is an error naming the batch and docid, never a corrupt index.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "nodes/analyze/collection.hpp"  // collection_prefix
#include "nodes/messages.hpp"

namespace invidx {

// Throws invidx::Error (node "index") for batch `batch.sequence`.
[[noreturn]] void fail_batch(const RegroupedBatch& batch, const std::string& message);

// The slice names a collection and lies inside the batch's occurrences.
void check_slice(const RegroupedBatch& batch, const CollectionSlice& slice);

// Occurrence i of the slice is well formed (its collection, document, term
// bytes of at most 255 carrying the collection's prefix, tf > 0, positions
// when positional); returns its docid. term receives the full term.
uint32_t check_occurrence(const RegroupedBatch& batch, const CollectionSlice& slice, uint32_t i,
                          std::string_view prefix, bool positional, std::string_view& term);

}  // namespace invidx
