// The document-at-a-time loop of block-max MaxScore (the algorithm is
// described in query/maxscore_or.hpp), written once for its two scorings:
// BM25 or impacts in doubles summed in query order (maxscore_or) and
// quantized impacts in exact integers (impact_maxscore_or). What differs
// between them is only how a posting's contribution and a list's or block's
// bound are read, in what number type they add up, how a bound compares
// with the threshold and how a document's final score is formed: a Scoring
// says that, and the loop is compiled for each, so the integer path keeps
// its integer arithmetic and its key-ordered top k.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "query/posting_cursor.hpp"
#include "query/query_stats.hpp"
#include "query/scoring_cursor.hpp"
#include "query/topk.hpp"

namespace invidx {

// How MaxScore scores the postings of `Cursor`s.
template <class S, class Cursor>
concept MaxScoreScoring =
    std::constructible_from<typename S::Top, size_t> &&
    requires(S scoring, Cursor& cursor, const Cursor& view, uint32_t docid, typename S::Score score,
             typename S::Top& top) {
        { S::list_bound(view) } -> std::same_as<typename S::Score>;  // the list's largest contribution
        { S::may_enter(score, top.threshold()) } -> std::same_as<bool>;  // can a document bounded by score enter?
        scoring.start_document(docid);
        { scoring.add(cursor) } -> std::same_as<typename S::Score>;  // the current posting's contribution
        // Offers the document whose contributions were added (their running
        // sum is `score`); true if the top k kept it.
        { scoring.push(top, docid, score) } -> std::same_as<bool>;
        scoring.end_document();
    } &&
    (!BlockMaxCursor<Cursor> || requires(Cursor& cursor, uint32_t docid) {
        // The bound of the block holding the first docid >= docid, read without decoding.
        { S::block_bound(cursor, docid) } -> std::same_as<typename S::Score>;
    });

// `cursors` fresh, in query order; they are moved.
template <ScoringCursor Cursor, MaxScoreScoring<Cursor> Scoring>
std::vector<ScoredDocument> maxscore_loop(std::span<Cursor> cursors, Scoring& scoring, size_t k, QueryStats* stats) {
    using Score = typename Scoring::Score;
    QueryStats local;
    typename Scoring::Top top(k);
    const size_t n = cursors.size();
    if (n > 0 && k > 0) {
        for (const auto& cursor : cursors) local.postings += cursor.size();
        // by_bound[i]: the cursor with the i-th smallest list bound (ties in query order).
        std::vector<Cursor*> by_bound(n);
        for (size_t t = 0; t < n; ++t) by_bound[t] = &cursors[t];
        std::stable_sort(by_bound.begin(), by_bound.end(),
                         [](const Cursor* a, const Cursor* b) { return Scoring::list_bound(*a) < Scoring::list_bound(*b); });
        // bound_below[i]: the sum of the list bounds of by_bound[0..i-1].
        std::vector<Score> bound_below(n + 1, Score{0});
        for (size_t i = 0; i < n; ++i) bound_below[i + 1] = bound_below[i] + Scoring::list_bound(*by_bound[i]);
        // Block-max cursors, top k full: the same with the block maxima at the candidate.
        std::vector<Score> block_below(n + 1, Score{0});
        size_t first_essential = 0;  // by_bound[0, first_essential) are non-essential

        while (first_essential < n) {
            uint32_t candidate = kNoDocument;
            for (size_t i = first_essential; i < n; ++i) candidate = std::min(candidate, by_bound[i]->docid());
            if (candidate == kNoDocument) break;
            ++local.documents_considered;
            const auto threshold = top.threshold();
            const Score* probe_below = bound_below.data();

            if constexpr (BlockMaxCursor<Cursor>) {
                if (top.full()) {
                    // The block-max bound of every docid from the candidate to `next`, nothing decoded.
                    Score bound{0};
                    uint32_t next = kNoDocument;
                    for (size_t i = 0; i < n; ++i) {
                        Cursor& cursor = *by_bound[i];
                        if (i >= first_essential && cursor.docid() != candidate) {
                            next = std::min(next, cursor.docid());  // not in its list before that
                            continue;
                        }
                        const Score block_max = Scoring::block_bound(cursor, candidate);
                        bound += block_max;
                        if (i < first_essential) block_below[i + 1] = block_below[i] + block_max;
                        const uint32_t last = cursor.block_last_docid();
                        if (last != kNoDocument) next = std::min(next, last + 1);
                    }
                    if (!Scoring::may_enter(bound, threshold)) {
                        for (size_t i = first_essential; i < n; ++i) {
                            if (by_bound[i]->docid() == candidate) by_bound[i]->next_geq(next);
                        }
                        continue;
                    }
                    probe_below = block_below.data();
                }
            }

            scoring.start_document(candidate);
            Score score{0};  // the running sum the bounds are checked with
            for (size_t i = first_essential; i < n; ++i) {
                Cursor& cursor = *by_bound[i];
                if (cursor.docid() != candidate) continue;
                score += scoring.add(cursor);
                cursor.next();
            }
            bool pruned = false;
            for (size_t i = first_essential; i-- > 0;) {  // largest bound first
                if (!Scoring::may_enter(score + probe_below[i + 1], threshold)) {
                    pruned = true;
                    break;
                }
                Cursor& cursor = *by_bound[i];
                cursor.next_geq(candidate);
                if (cursor.docid() == candidate) score += scoring.add(cursor);
            }
            if (!pruned) {
                ++local.documents_scored;
                if (scoring.push(top, candidate, score)) {
                    const auto raised = top.threshold();
                    while (first_essential < n && !Scoring::may_enter(bound_below[first_essential + 1], raised)) {
                        ++first_essential;
                    }
                }
            }
            scoring.end_document();
        }
    }
    add_block_counts(cursors, local);
    if (stats) *stats += local;
    return top.take_sorted();
}

}  // namespace invidx
