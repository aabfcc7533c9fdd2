// TopK for integer scores (sums of impacts, each times its query weight:
// query/impact_weights.hpp): each kept document is one key, score in the
// high bits and the docid's complement in the low 32 (a 64-bit key for
// 32-bit scores, a 128-bit one for 64-bit scores), so that "ranks before" (higher score, ties by smaller docid; CONTENT.md §10)
// is one unsigned comparison of keys. The heap is a min-heap of keys (its top
// is the worst kept document) sifted by hand: no comparator calls and no
// double conversions on the hot path of an impact query.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <vector>

#include "query/topk.hpp"

namespace invidx {

template <class Score>
class BasicImpactTopK {
    static_assert(std::is_same_v<Score, uint32_t> || std::is_same_v<Score, uint64_t>);
    using Key = std::conditional_t<std::is_same_v<Score, uint32_t>, uint64_t, unsigned __int128>;

public:
    explicit BasicImpactTopK(size_t k) : k_(k) { heap_.reserve(std::min<size_t>(k, 1 << 16)); }

    size_t k() const { return k_; }
    bool full() const { return heap_.size() >= k_; }

    // The score a newcomer arriving in increasing docid order must beat:
    // the worst kept score once k are kept, -1 before (every score is >= 0;
    // 64-bit scores stay below 2^63: query/impact_weights.hpp keeps them below 2^53).
    int64_t threshold() const { return threshold_; }

    // Keeps the document if it ranks before the worst kept one; true if kept.
    bool push(uint32_t docid, Score score) {
        if (k_ == 0) return false;
        const Key key = make_key(docid, score);
        if (!full()) {
            heap_.push_back(key);
            std::push_heap(heap_.begin(), heap_.end(), std::greater<>{});
            if (full()) threshold_ = static_cast<int64_t>(heap_.front() >> 32);
            return true;
        }
        if (key <= heap_.front()) return false;
        sift_down_from_top(key);
        threshold_ = static_cast<int64_t>(heap_.front() >> 32);
        return true;
    }

    // The kept documents, best first; the ImpactTopK is left empty.
    std::vector<ScoredDocument> take_sorted() {
        std::sort(heap_.begin(), heap_.end(), std::greater<>{});
        std::vector<ScoredDocument> out;
        out.reserve(heap_.size());
        for (const Key key : heap_) {
            out.push_back({~static_cast<uint32_t>(key), static_cast<double>(key >> 32)});
        }
        heap_.clear();
        threshold_ = -1;
        return out;
    }

private:
    static Key make_key(uint32_t docid, Score score) { return (Key{score} << 32) | ~docid; }

    // Replaces the top (the smallest key) by `key` and restores the heap.
    void sift_down_from_top(Key key) {
        const size_t size = heap_.size();
        Key* heap = heap_.data();
        size_t hole = 0;
        for (;;) {
            size_t child = 2 * hole + 1;
            if (child >= size) break;
            if (child + 1 < size && heap[child + 1] < heap[child]) ++child;
            if (heap[child] >= key) break;
            heap[hole] = heap[child];
            hole = child;
        }
        heap[hole] = key;
    }

    size_t k_;
    int64_t threshold_ = -1;
    std::vector<Key> heap_;
};

using ImpactTopK = BasicImpactTopK<uint32_t>;      // scores below 2^32
using WideImpactTopK = BasicImpactTopK<uint64_t>;  // larger scores (weighted queries)

}  // namespace invidx
