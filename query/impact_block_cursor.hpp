// A cursor over one term's list in the query layout scored by its quantized
// BM25 impacts (query.post version 2, written by `invidx weight`; store/impacts.hpp):
// the same docid navigation as BlockCursor (skips over undecoded blocks,
// shallow block maxima), but a posting's contribution is its stored integer
// impact and a block's bound its stored integer maximum: nothing of BM25 is
// evaluated at query time, and a block's impacts are decoded only when one
// of its postings is scored.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "query/block_cursor.hpp"
#include "query/scoring_cursor.hpp"
#include "store/query_postings.hpp"

namespace invidx {

class ImpactBlockCursor {
public:
    // `list` (of a layout with impacts) must outlive the cursor. Decodes the first block's docids.
    explicit ImpactBlockCursor(const QueryList& list);

    uint32_t docid() const { return cursor_.docid(); }
    size_t size() const { return cursor_.size(); }
    double max_score() const { return static_cast<double>(cursor_.list().max_impact()); }

    void next() { cursor_.next(); }
    void next_geq(uint32_t target) { cursor_.next_geq(target); }

    uint32_t impact() {
        if (impact_block_ != cursor_.block()) decode_impacts();
        return impacts_[cursor_.position()];
    }

    double block_max_score(uint32_t target) {
        const size_t k = cursor_.shallow_block(target);
        const auto blocks = cursor_.list().blocks();
        return k < blocks.size() ? static_cast<double>(blocks[k].max_impact) : 0.0;
    }
    uint32_t block_last_docid() const { return cursor_.block_last_docid(); }

    // Blocks in the list, and those whose docids / impacts this cursor decoded
    // (impact blocks are counted as the tf blocks of QueryStats).
    size_t blocks() const { return cursor_.blocks(); }
    uint64_t docid_blocks_decoded() const { return cursor_.docid_blocks_decoded(); }
    uint64_t tf_blocks_decoded() const { return impact_blocks_decoded_; }

private:
    static constexpr size_t kNoBlock = static_cast<size_t>(-1);

    void decode_impacts();

    BlockCursor cursor_;  // docids and skipping; its tfs are never decoded
    size_t impact_block_ = kNoBlock;
    uint64_t impact_blocks_decoded_ = 0;
    std::array<uint32_t, 128> impacts_{};
};

static_assert(BlockMaxCursor<ImpactBlockCursor>);
static_assert(ImpactCursor<ImpactBlockCursor>);

}  // namespace invidx
