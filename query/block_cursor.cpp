#include "query/block_cursor.hpp"

#include <algorithm>
#include <span>
#include <utility>

#include "invidx/error.hpp"
#include "store/index_layout.hpp"

namespace invidx {

static_assert(layout::kQueryBlockPostings == 128, "BlockCursor's buffers hold one block");

BlockCursor::BlockCursor(const QueryList& list, double idf, std::shared_ptr<const BlockMaxima> maxima)
    : list_(&list),
      maxima_(std::move(maxima)),
      idf_(idf),
      max_score_(idf * (maxima_ ? maxima_->list : list.max_tf_part())) {
    ensure(!maxima_ || maxima_->blocks.size() == list.blocks().size(), "BlockCursor: one bound per block");
    enter_block(0);
}

void BlockCursor::enter_block(size_t k) {
    const auto blocks = list_->blocks();
    block_ = std::min(k, blocks.size());
    shallow_ = std::max(shallow_, block_);
    position_ = 0;
    if (block_ == blocks.size()) {
        block_postings_ = 0;
        docid_ = kNoDocument;
        return;
    }
    block_postings_ = blocks[block_].postings;
    list_->decode_docids(block_, std::span(docids_.data(), block_postings_));
    ++docid_blocks_decoded_;
    docid_ = docids_[0];
}

void BlockCursor::decode_tfs() {
    list_->decode_tfs(block_, std::span(tfs_.data(), block_postings_));
    ++tf_blocks_decoded_;
    tf_block_ = block_;
}

size_t BlockCursor::find_block(size_t from, uint32_t target) const {
    const auto blocks = list_->blocks();
    const size_t count = blocks.size();
    if (from >= count || blocks[from].last_docid >= target) return from;
    // Gallop over the skip entries, then binary search the window (low, high]:
    // a skip far ahead costs O(log blocks), a skip to the next block O(1).
    size_t low = from;
    size_t step = 1;
    size_t high = low + step;
    while (high < count && blocks[high].last_docid < target) {
        low = high;
        step *= 2;
        high = low + step;
    }
    high = std::min(high, count);
    const auto first = blocks.begin() + static_cast<std::ptrdiff_t>(low + 1);
    const auto last = blocks.begin() + static_cast<std::ptrdiff_t>(high);
    return static_cast<size_t>(
        std::partition_point(first, last, [&](const QueryBlock& block) { return block.last_docid < target; }) - blocks.begin());
}

void BlockCursor::skip_to_block(uint32_t target) { enter_block(find_block(block_ + 1, target)); }

}  // namespace invidx
