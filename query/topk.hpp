// The k best documents seen so far: a bounded heap whose top is the worst
// kept document. Ranking (CONTENT.md §10): higher score first, ties by smaller docid.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace invidx {

struct ScoredDocument {
    uint32_t docid = 0;
    double score = 0.0;
    friend bool operator==(const ScoredDocument&, const ScoredDocument&) = default;
};

// True when `a` ranks before `b`.
inline bool ranks_before(const ScoredDocument& a, const ScoredDocument& b) {
    return a.score > b.score || (a.score == b.score && a.docid < b.docid);
}

// ranks_before as a function object, so the heap operations inline it
// (through a function pointer they call it: a tenth of a k = 1000 query).
struct RanksBefore {
    bool operator()(const ScoredDocument& a, const ScoredDocument& b) const { return ranks_before(a, b); }
};

class TopK {
public:
    explicit TopK(size_t k) : k_(k) { heap_.reserve(std::min<size_t>(k, 1 << 16)); }

    size_t k() const { return k_; }
    size_t size() const { return heap_.size(); }
    bool full() const { return heap_.size() >= k_; }

    // The score a new document must beat: the worst kept score once k are
    // kept, -infinity before. Documents arriving in increasing docid order
    // (DAAT) enter only with a score strictly above it.
    double threshold() const {
        return full() && k_ > 0 ? heap_.front().score : -std::numeric_limits<double>::infinity();
    }

    // Keeps `document` if it ranks before the worst kept one; true if kept.
    bool push(ScoredDocument document) {
        if (k_ == 0) return false;
        if (!full()) {
            heap_.push_back(document);
            std::push_heap(heap_.begin(), heap_.end(), RanksBefore{});  // front: ranks last
            return true;
        }
        if (!ranks_before(document, heap_.front())) return false;
        std::pop_heap(heap_.begin(), heap_.end(), RanksBefore{});
        heap_.back() = document;
        std::push_heap(heap_.begin(), heap_.end(), RanksBefore{});
        return true;
    }

    // The kept documents, best first; the TopK is left empty.
    std::vector<ScoredDocument> take_sorted() {
        // With ranks_before as "less", ascending order is best first.
        std::sort_heap(heap_.begin(), heap_.end(), RanksBefore{});
        std::vector<ScoredDocument> out = std::move(heap_);
        heap_.clear();
        return out;
    }

private:
    size_t k_;
    std::vector<ScoredDocument> heap_;
};

}  // namespace invidx
