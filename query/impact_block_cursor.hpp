// A cursor over one term's list in the query layout scored by its quantized
// BM25 impacts (query.post version 2, written by `invidx weight`; store/impacts.hpp):
// the docid navigation of BlockCursor (skips over undecoded blocks by their
// last docids, shallow block maxima), but a posting's contribution is its
// stored integer impact and a block's bound its stored integer maximum:
// nothing of BM25 is evaluated at query time, and a block's impacts are
// decoded only when one of its postings is scored. A cursor has its term's
// integer query weight (query/impact_weights.hpp; 1 for plain text): its
// contributions and bounds are the impacts and block maxima times it.
//
// Its own code rather than a BlockCursor inside: next_geq within a block
// scans forward instead of binary searching (probes land mostly a few
// postings ahead, where a forward scan beats a binary search's dependent
// loads; docs/PERFORMANCE.md, "Impact scoring"), and the integer bounds
// are read without a conversion.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "query/posting_cursor.hpp"
#include "query/scoring_cursor.hpp"
#include "store/query_postings.hpp"

namespace invidx {

class ImpactBlockCursor {
public:
    // `list` (of a layout with impacts) must outlive the cursor; `weight`
    // multiplies every impact. Decodes the first block's docids.
    explicit ImpactBlockCursor(const QueryList& list, uint64_t weight = 1);

    uint32_t docid() const { return docid_; }
    size_t size() const { return list_->df(); }
    uint64_t weight() const { return weight_; }
    // The list's largest contribution: its largest impact times the weight.
    uint64_t max_impact() const { return weight_ * list_->max_impact(); }
    double max_score() const { return static_cast<double>(max_impact()); }

    void next() {
        if (++position_ < block_postings_) {
            docid_ = docids_[position_];
        } else {
            enter_block(block_ + 1);
        }
    }
    void next_geq(uint32_t target) {
        if (docid_ >= target) return;  // also at the end (kNoDocument)
        if (blocks_[block_].last_docid < target) {
            skip_to_block(target);
            if (docid_ >= target) return;
        }
        // The target is in this block, whose last docid is >= target: the scan stops there.
        size_t position = position_ + 1;
        while (docids_[position] < target) ++position;
        position_ = position;
        docid_ = docids_[position];
    }

    // The current posting's contribution: its impact times the weight.
    uint64_t impact() {
        if (impact_block_ != block_) decode_impacts();
        return weight_ * impacts_[position_];
    }

    // The largest contribution in the first block whose last docid is >=
    // target (0 past the list's end), read without decoding; never behind
    // the current block.
    uint64_t block_max_impact(uint32_t target) {
        size_t from = std::max(shallow_, block_);
        if (from < block_count_ && blocks_[from].last_docid < target) from = find_block(from + 1, target);
        shallow_ = from;
        return from < block_count_ ? weight_ * blocks_[from].max_impact : 0;
    }
    double block_max_score(uint32_t target) { return static_cast<double>(block_max_impact(target)); }
    // That block's last docid (kNoDocument past the end), after block_max_impact.
    uint32_t block_last_docid() const { return shallow_ < block_count_ ? blocks_[shallow_].last_docid : kNoDocument; }

    // Blocks in the list, and those whose docids / impacts this cursor decoded
    // (impact blocks are counted as the tf blocks of QueryStats).
    size_t blocks() const { return block_count_; }
    uint64_t docid_blocks_decoded() const { return docid_blocks_decoded_; }
    uint64_t tf_blocks_decoded() const { return impact_blocks_decoded_; }

private:
    static constexpr size_t kNoBlock = static_cast<size_t>(-1);

    // Decodes block k's docids and stands on its first posting (past the end: no document).
    void enter_block(size_t k);
    // Enters the first block after the current one that can hold target.
    void skip_to_block(uint32_t target) { enter_block(find_block(block_ + 1, target)); }
    void decode_impacts();
    // The first block at or after `from` whose last docid is >= target (block_count_ if none).
    size_t find_block(size_t from, uint32_t target) const;

    const QueryList* list_;
    uint64_t weight_;
    const QueryBlock* blocks_;
    size_t block_count_;
    size_t block_ = 0;
    size_t position_ = 0;        // in the block
    size_t block_postings_ = 0;  // of the current block
    uint32_t docid_ = kNoDocument;
    size_t shallow_ = 0;  // the block block_max_impact last looked at
    size_t impact_block_ = kNoBlock;
    uint64_t docid_blocks_decoded_ = 0;
    uint64_t impact_blocks_decoded_ = 0;
    std::array<uint32_t, 128> docids_{};
    std::array<uint32_t, 128> impacts_{};
};

static_assert(BlockMaxCursor<ImpactBlockCursor>);
static_assert(ImpactCursor<ImpactBlockCursor>);

}  // namespace invidx
