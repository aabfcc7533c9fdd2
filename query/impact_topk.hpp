// TopK for integer scores (quantized impacts): each kept document is one
// 64-bit key, score in the high half and the docid's complement in the low
// half, so that "ranks before" (higher score, ties by smaller docid; CONTENT.md §10)
// is one unsigned comparison of keys. The heap is a min-heap of keys (its top
// is the worst kept document) sifted by hand: no comparator calls and no
// double conversions on the hot path of an impact query.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "query/topk.hpp"

namespace invidx {

class ImpactTopK {
public:
    explicit ImpactTopK(size_t k) : k_(k) { heap_.reserve(std::min<size_t>(k, 1 << 16)); }

    size_t k() const { return k_; }
    bool full() const { return heap_.size() >= k_; }

    // The score a newcomer arriving in increasing docid order must beat:
    // the worst kept score once k are kept, -1 before (every score is >= 0).
    int64_t threshold() const { return threshold_; }

    // Keeps the document if it ranks before the worst kept one; true if kept.
    bool push(uint32_t docid, uint32_t score) {
        if (k_ == 0) return false;
        const uint64_t key = make_key(docid, score);
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
        for (const uint64_t key : heap_) {
            out.push_back({~static_cast<uint32_t>(key), static_cast<double>(key >> 32)});
        }
        heap_.clear();
        threshold_ = -1;
        return out;
    }

private:
    static uint64_t make_key(uint32_t docid, uint32_t score) { return (uint64_t{score} << 32) | ~docid; }

    // Replaces the top (the smallest key) by `key` and restores the heap.
    void sift_down_from_top(uint64_t key) {
        const size_t size = heap_.size();
        uint64_t* heap = heap_.data();
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
    std::vector<uint64_t> heap_;
};

}  // namespace invidx
