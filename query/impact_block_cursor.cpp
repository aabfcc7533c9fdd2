#include "query/impact_block_cursor.hpp"

#include <span>

#include "invidx/error.hpp"
#include "store/index_layout.hpp"

namespace invidx {

static_assert(layout::kQueryBlockPostings == 128, "ImpactBlockCursor's buffers hold one block");

ImpactBlockCursor::ImpactBlockCursor(const QueryList& list, uint64_t weight)
    : list_(&list), weight_(weight), blocks_(list.blocks().data()), block_count_(list.blocks().size()) {
    ensure(list.has_impacts(), "ImpactBlockCursor: the query layout has no impacts (invidx weight makes them)");
    enter_block(0);
}

void ImpactBlockCursor::enter_block(size_t k) {
    block_ = std::min(k, block_count_);
    shallow_ = std::max(shallow_, block_);
    position_ = 0;
    if (block_ == block_count_) {
        block_postings_ = 0;
        docid_ = kNoDocument;
        return;
    }
    block_postings_ = blocks_[block_].postings;
    list_->decode_docids(block_, std::span(docids_.data(), block_postings_));
    ++docid_blocks_decoded_;
    docid_ = docids_[0];
}

void ImpactBlockCursor::decode_impacts() {
    list_->decode_impacts(block_, std::span(impacts_.data(), block_postings_));
    ++impact_blocks_decoded_;
    impact_block_ = block_;
}

size_t ImpactBlockCursor::find_block(size_t from, uint32_t target) const {
    if (from >= block_count_ || blocks_[from].last_docid >= target) return from;
    // Gallop over the skip entries, then binary search the window (low, high]:
    // a skip far ahead costs O(log blocks), a skip to the next block O(1).
    size_t low = from;
    size_t step = 1;
    size_t high = low + step;
    while (high < block_count_ && blocks_[high].last_docid < target) {
        low = high;
        step *= 2;
        high = low + step;
    }
    high = std::min(high, block_count_);
    const QueryBlock* found = std::partition_point(blocks_ + low + 1, blocks_ + high,
                                                   [&](const QueryBlock& block) { return block.last_docid < target; });
    return static_cast<size_t>(found - blocks_);
}

}  // namespace invidx
