// Regrouping a parsed batch by trie collection (Wei & JaJa §III.C, Step 5):
// every indexer then reads one contiguous slice per collection it owns, so
// its B-tree for that collection stays in cache while the slice is inserted.
#pragma once

#include "invidx/messages.hpp"

namespace invidx {

// Moves the payload of `batch` into a RegroupedBatch whose occurrences are
// ordered by collection with a stable counting sort: within a collection the
// parser's order (increasing local docid) is kept, so postings stay sorted
// without a comparison sort. O(occurrences + kCollections).
// `slices` lists the non-empty collections in increasing order with their tf sum.
// Throws invidx::Error (node "regroup") when an occurrence names a collection
// >= kCollections or a document outside the batch.
RegroupedBatch regroup(ParsedBatch&& batch);

}  // namespace invidx
