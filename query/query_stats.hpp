// What one query's evaluation did: how much dynamic pruning saved.
#pragma once

#include <cstdint>
#include <span>

namespace invidx {

struct QueryStats {
    uint64_t postings = 0;              // postings in the query's lists
    uint64_t documents_considered = 0;  // candidates taken from the (essential) lists
    uint64_t documents_scored = 0;      // candidates scored over every term and offered to the top k
    // Query layout only (BlockCursor): blocks in the query's lists, and the
    // blocks whose docids / tfs were decoded; the rest were skipped.
    uint64_t blocks = 0;
    uint64_t docid_blocks_decoded = 0;
    uint64_t tf_blocks_decoded = 0;

    QueryStats& operator+=(const QueryStats& other) {
        postings += other.postings;
        documents_considered += other.documents_considered;
        documents_scored += other.documents_scored;
        blocks += other.blocks;
        docid_blocks_decoded += other.docid_blocks_decoded;
        tf_blocks_decoded += other.tf_blocks_decoded;
        return *this;
    }
};

// Adds the block counts of cursors that keep them (BlockCursor).
template <class Cursor>
void add_block_counts(std::span<Cursor> cursors, QueryStats& stats) {
    if constexpr (requires(const Cursor& cursor) { cursor.docid_blocks_decoded(); }) {
        for (const auto& cursor : cursors) {
            stats.blocks += cursor.blocks();
            stats.docid_blocks_decoded += cursor.docid_blocks_decoded();
            stats.tf_blocks_decoded += cursor.tf_blocks_decoded();
        }
    }
}

}  // namespace invidx
