// A cursor over one term's list in the query layout (query.post: blocks of
// 128 postings, docs/FORMAT.md) that decodes as little as it can:
//   - next_geq skips whole blocks by their last docid (the skip entries) and
//     decodes a block's docids only when it stops in it;
//   - a block's tfs are decoded only when one of its postings is scored;
//   - block_max_score reads a block's stored maximum without decoding it
//     (the "shallow" move of Block-Max WAND, Ding & Suel, SIGIR 2011), or,
//     for a BM25 of other k1 and b than the layout's, the bounds given for it
//     (query/bm25_weighting.hpp).
// It counts the blocks it decodes, so tests and benchmarks can see the skipping.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "query/bm25_weighting.hpp"
#include "query/posting_cursor.hpp"
#include "query/scoring_cursor.hpp"
#include "store/query_postings.hpp"

namespace invidx {

class BlockCursor {
public:
    // `list` must outlive the cursor. Decodes the first block's docids.
    // `maxima`: the blocks' tf-part bounds to use instead of the stored ones
    // (one per block; null: the stored ones); the cursor keeps it alive.
    BlockCursor(const QueryList& list, double idf, std::shared_ptr<const BlockMaxima> maxima = nullptr);

    uint32_t docid() const { return docid_; }
    double idf() const { return idf_; }
    size_t size() const { return list_->df(); }
    double max_score() const { return max_score_; }

    void next() {
        if (++position_ < block_postings_) {
            docid_ = docids_[position_];
        } else {
            enter_block(block_ + 1);
        }
    }
    void next_geq(uint32_t target) {
        if (docid_ >= target) return;  // also at the end (kNoDocument)
        if (list_->blocks()[block_].last_docid < target) {
            skip_to_block(target);
            if (docid_ >= target) return;
        }
        // The target is in this block (its last docid is >= target).
        const uint32_t* begin = docids_.data();
        position_ = static_cast<size_t>(std::lower_bound(begin + position_ + 1, begin + block_postings_, target) - begin);
        docid_ = docids_[position_];
    }

    uint32_t tf() {
        if (tf_block_ != block_) decode_tfs();
        return tfs_[position_];
    }

    double block_max_score(uint32_t target) {
        const size_t k = shallow_block(target);
        if (k >= list_->blocks().size()) return 0.0;
        return idf_ * (maxima_ ? maxima_->blocks[k] : list_->blocks()[k].max_tf_part);
    }
    // The first block whose last docid is >= target (blocks() if none),
    // without decoding anything; block_last_docid() then gives its end.
    size_t shallow_block(uint32_t target) {
        // Never behind the current block: the target is at or past the current posting.
        const auto blocks = list_->blocks();
        size_t from = std::max(shallow_, block_);
        if (from < blocks.size() && blocks[from].last_docid < target) from = find_block(from + 1, target);
        shallow_ = from;
        return from;
    }
    uint32_t block_last_docid() const {
        const auto blocks = list_->blocks();
        return shallow_ < blocks.size() ? blocks[shallow_].last_docid : kNoDocument;
    }

    // Where the cursor stands: its block, and its posting in that block.
    size_t block() const { return block_; }
    size_t position() const { return position_; }
    const QueryList& list() const { return *list_; }

    // Blocks in the list, and those whose docids / tfs this cursor decoded.
    size_t blocks() const { return list_->blocks().size(); }
    uint64_t docid_blocks_decoded() const { return docid_blocks_decoded_; }
    uint64_t tf_blocks_decoded() const { return tf_blocks_decoded_; }

private:
    static constexpr size_t kNoBlock = static_cast<size_t>(-1);

    // Decodes block k's docids and stands on its first posting (past the end: no document).
    void enter_block(size_t k);
    // Enters the first block after the current one that can hold target, passing
    // over the others without decoding them.
    void skip_to_block(uint32_t target);
    void decode_tfs();
    // The first block at or after `from` whose last docid is >= target (blocks() if none).
    size_t find_block(size_t from, uint32_t target) const;

    const QueryList* list_;
    std::shared_ptr<const BlockMaxima> maxima_;  // null: the stored block maxima
    double idf_;
    double max_score_;  // idf · the list's largest block maximum
    size_t block_ = 0;
    size_t position_ = 0;        // in the block
    size_t block_postings_ = 0;  // of the current block
    uint32_t docid_ = kNoDocument;
    size_t tf_block_ = kNoBlock;  // the block tfs_ holds
    size_t shallow_ = 0;          // the block block_max_score last looked at
    uint64_t docid_blocks_decoded_ = 0;
    uint64_t tf_blocks_decoded_ = 0;
    std::array<uint32_t, 128> docids_{};
    std::array<uint32_t, 128> tfs_{};
};

static_assert(BlockMaxCursor<BlockCursor>);

}  // namespace invidx
