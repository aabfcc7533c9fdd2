// One query term's decoded postings, ready to score, and a cursor over them
// that skips forward by galloping (exponential then binary search) in the
// docid array: O(log gap) per skip, so intersecting a short list with a long
// one costs about |short|·log(|long|/|short|) (Bentley & Yao 1976; the
// "galloping" of Demaine, López-Ortiz & Munro 2000).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

#include "query/scoring_cursor.hpp"

namespace invidx {

inline constexpr uint32_t kNoDocument = std::numeric_limits<uint32_t>::max();

struct ScoredList {
    std::span<const uint32_t> docids;  // increasing
    std::span<const uint32_t> tfs;
    double idf = 0.0;
    double max_score = 0.0;            // idf · max over the postings of the tf part
};

class PostingCursor {
public:
    explicit PostingCursor(const ScoredList& list) : list_(&list) {}

    const ScoredList& list() const { return *list_; }
    double idf() const { return list_->idf; }
    double max_score() const { return list_->max_score; }
    size_t size() const { return list_->docids.size(); }
    bool at_end() const { return position_ >= list_->docids.size(); }
    uint32_t docid() const { return at_end() ? kNoDocument : list_->docids[position_]; }
    uint32_t tf() const { return list_->tfs[position_]; }
    size_t position() const { return position_; }

    void next() { ++position_; }

    // Moves to the first posting with docid >= target (never backwards).
    void next_geq(uint32_t target) {
        const auto docids = list_->docids;
        const size_t size = docids.size();
        if (position_ >= size || docids[position_] >= target) return;
        // Gallop: find a window (low, high] with docids[low] < target <= docids[high].
        size_t low = position_;
        size_t step = 1;
        size_t high = low + step;
        while (high < size && docids[high] < target) {
            low = high;
            step *= 2;
            high = low + step;
        }
        high = std::min(high, size);
        position_ = static_cast<size_t>(std::lower_bound(docids.begin() + static_cast<std::ptrdiff_t>(low + 1),
                                                         docids.begin() + static_cast<std::ptrdiff_t>(high), target) -
                                        docids.begin());
    }

private:
    const ScoredList* list_;
    size_t position_ = 0;
};

static_assert(ScoringCursor<PostingCursor>);

}  // namespace invidx
