#include "query/impact_taat_or.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "invidx/error.hpp"
#include "query/impact_topk.hpp"
#include "query/posting_cursor.hpp"
#include "store/index_layout.hpp"

namespace invidx {

namespace {

static_assert(layout::kQueryBlockPostings == 128, "ListWindow's buffers hold one block");

constexpr size_t kNoBlock = static_cast<size_t>(-1);
// Accumulators compared with the threshold per chunk before any is looked at alone.
constexpr uint32_t kScanChunk = 64;

// One list's progress through the windows: the first block not yet wholly
// behind the current window, and the block whose postings the buffers hold
// (a block straddling two windows is decoded once).
struct ListWindow {
    const QueryList* list = nullptr;
    uint64_t weight = 1;  // the term's integer query weight: contributions are impact · weight
    std::span<const QueryBlock> blocks;
    size_t block = 0;
    size_t decoded = kNoBlock;
    std::array<uint32_t, 128> docids{};
    std::array<uint32_t, 128> impacts{};

    bool done() const { return block >= blocks.size(); }

    // The largest block maximum of the blocks that may hold a docid below `end`, times the weight.
    uint64_t bound_before(uint32_t end) const {
        uint32_t bound = 0;
        for (size_t b = block; b < blocks.size() && blocks[b].next_docid < end; ++b) bound = std::max(bound, blocks[b].max_impact);
        return weight * bound;
    }

    // Passes over the blocks that end before `end`, decoding nothing.
    void skip_before(uint32_t end) {
        while (block < blocks.size() && blocks[block].last_docid < end) ++block;
    }

    // Adds the impacts of the postings in [begin, end) to acc[docid − begin],
    // but for blocks whose maximum is at most `useless`: no document of such
    // a block can enter the top k even with this list's impact, so leaving it
    // out changes no document that can.
    template <class Accumulator>
    void accumulate(uint32_t begin, uint32_t end, int64_t useless, Accumulator* acc, QueryStats& stats) {
        for (; block < blocks.size() && blocks[block].next_docid < end; ++block) {
            const QueryBlock& entry = blocks[block];
            const size_t n = entry.postings;
            if (static_cast<int64_t>(weight * entry.max_impact) <= useless) {
                if (entry.last_docid >= end) break;
                continue;
            }
            if (decoded != block) {
                list->decode_docids(block, std::span(docids.data(), n));
                list->decode_impacts(block, std::span(impacts.data(), n));
                decoded = block;
                ++stats.docid_blocks_decoded;
                ++stats.tf_blocks_decoded;
            }
            // Every weighted impact fits the accumulators: their type holds the query's largest score.
            const auto w = static_cast<Accumulator>(weight);
            if (entry.next_docid >= begin && entry.last_docid < end) {
                // Wholly inside the window: no test per posting.
                for (size_t p = 0; p < n; ++p) acc[docids[p] - begin] += static_cast<Accumulator>(static_cast<Accumulator>(impacts[p]) * w);
                stats.documents_considered += n;
            } else {
                for (size_t p = 0; p < n; ++p) {
                    const uint32_t docid = docids[p];
                    if (docid >= begin && docid < end) {
                        acc[docid - begin] += static_cast<Accumulator>(static_cast<Accumulator>(impacts[p]) * w);
                        ++stats.documents_considered;
                    }
                }
            }
            if (entry.last_docid >= end) break;  // continues in the next window
        }
    }
};

// Offers every document of acc[0, count) (docid begin + i) that can enter the top k.
template <class Accumulator, class Top>
void offer_window(const Accumulator* acc, uint32_t begin, uint32_t count, Top& top, QueryStats& stats) {
    // An accumulator of 0 is a document no list holds; every posting adds >= 1.
    // The threshold fits the accumulators' type: it is some document's score.
    auto floor = static_cast<Accumulator>(std::max<int64_t>(top.threshold(), 0));
    for (uint32_t chunk = 0; chunk < count; chunk += kScanChunk) {
        const uint32_t chunk_end = std::min(count, chunk + kScanChunk);
        // "Any above the floor" as an OR of comparisons, which vectorizes
        // without the unsigned max instructions baseline x86-64 lacks.
        Accumulator above = 0;
        for (uint32_t i = chunk; i < chunk_end; ++i) above |= static_cast<Accumulator>(acc[i] > floor);
        if (above == 0) continue;
        for (uint32_t i = chunk; i < chunk_end; ++i) {
            if (acc[i] <= floor) continue;
            ++stats.documents_scored;
            if (top.push(begin + i, acc[i])) {
                floor = static_cast<Accumulator>(std::max<int64_t>(top.threshold(), 0));
            }
        }
    }
}

template <class Accumulator, class Top>
void run_windows(std::span<ListWindow> lists, uint32_t window_docs, Top& top, QueryStats& stats) {
    uint64_t end_of_lists = 0;  // one past the largest docid
    for (const auto& list : lists) {
        if (!list.blocks.empty()) end_of_lists = std::max<uint64_t>(end_of_lists, uint64_t{list.blocks.back().last_docid} + 1);
    }
    std::vector<Accumulator> acc(window_docs, 0);
    std::vector<int64_t> useless(lists.size(), -1);
    uint64_t begin = 0;
    for (;;) {
        // The window starts at the first docid any list may still hold.
        uint64_t first = end_of_lists;
        for (const auto& list : lists) {
            if (!list.done()) first = std::min<uint64_t>(first, list.blocks[list.block].next_docid);
        }
        begin = std::max(begin, first);
        if (begin >= end_of_lists) break;
        const auto window_begin = static_cast<uint32_t>(begin);
        const auto window_end = static_cast<uint32_t>(std::min<uint64_t>(begin + window_docs, end_of_lists));
        // useless[i]: list i's blocks with a maximum up to this add nothing
        // (the threshold less every other list's bound in the window; -1 before the top k is full).
        useless.assign(lists.size(), -1);
        if (top.full()) {
            int64_t bound = 0;
            for (size_t i = 0; i < lists.size(); ++i) {
                useless[i] = lists[i].bound_before(window_end);
                bound += useless[i];
            }
            const int64_t threshold = top.threshold();
            if (bound <= threshold) {
                for (auto& list : lists) list.skip_before(window_end);
                begin = window_end;
                continue;
            }
            for (auto& value : useless) value = threshold - (bound - value);
        }
        for (size_t i = 0; i < lists.size(); ++i) lists[i].accumulate(window_begin, window_end, useless[i], acc.data(), stats);
        offer_window(acc.data(), window_begin, window_end - window_begin, top, stats);
        std::fill(acc.begin(), acc.begin() + (window_end - window_begin), Accumulator{0});
        begin = window_end;
    }
}

}  // namespace

std::vector<ScoredDocument> impact_taat_or(std::span<const QueryList* const> lists, std::span<const uint64_t> weights,
                                           size_t k, QueryStats* stats, uint32_t window_docs) {
    ensure(window_docs > 0, "impact_taat_or: the window must hold a document");
    ensure(weights.empty() || weights.size() == lists.size(), "impact_taat_or: one weight per list");
    QueryStats local;
    std::vector<ScoredDocument> hits;
    if (!lists.empty() && k > 0) {
        std::vector<ListWindow> windows(lists.size());
        uint64_t most = 0;  // the largest score any document can have
        for (size_t i = 0; i < lists.size(); ++i) {
            windows[i].list = lists[i];
            windows[i].weight = weights.empty() ? 1 : weights[i];
            windows[i].blocks = lists[i]->blocks();
            local.postings += lists[i]->df();
            local.blocks += lists[i]->blocks().size();
            ensure(!__builtin_add_overflow(most, windows[i].weight * lists[i]->max_impact(), &most) &&
                       most <= uint64_t{std::numeric_limits<int64_t>::max()},
                   "impact_taat_or: scores beyond 63 bits (query/impact_weights.hpp keeps them below 2^53)");
        }
        // The narrowest accumulators that hold every score (and a top k of keys to match).
        if (most <= std::numeric_limits<uint16_t>::max()) {
            ImpactTopK top(k);
            run_windows<uint16_t>(windows, window_docs, top, local);
            hits = top.take_sorted();
        } else if (most <= std::numeric_limits<uint32_t>::max()) {
            ImpactTopK top(k);
            run_windows<uint32_t>(windows, window_docs, top, local);
            hits = top.take_sorted();
        } else {
            WideImpactTopK top(k);
            run_windows<uint64_t>(windows, window_docs, top, local);
            hits = top.take_sorted();
        }
    }
    if (stats) *stats += local;
    return hits;
}

std::vector<ScoredDocument> impact_taat_or(std::span<const QueryList* const> lists, size_t k, QueryStats* stats,
                                           uint32_t window_docs) {
    return impact_taat_or(lists, {}, k, stats, window_docs);
}

bool impact_taat_suits(std::span<const QueryList* const> lists, std::span<const uint64_t> weights, uint64_t documents) {
    uint64_t postings = 0;
    uint64_t most = 0;
    bool fits = true;
    for (size_t i = 0; i < lists.size(); ++i) {
        postings += lists[i]->df();
        fits = fits && !__builtin_add_overflow(most, (weights.empty() ? 1 : weights[i]) * lists[i]->max_impact(), &most);
    }
    return lists.size() >= 2 && fits && most <= uint64_t{std::numeric_limits<int64_t>::max()} &&
           postings * kImpactTaatDocsPerPosting >= documents;
}

bool impact_taat_suits(std::span<const QueryList* const> lists, uint64_t documents) {
    return impact_taat_suits(lists, {}, documents);
}

}  // namespace invidx
