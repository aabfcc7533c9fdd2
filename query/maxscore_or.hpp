// Disjunctive (OR) queries with MaxScore dynamic pruning (Turtle & Flood,
// "Query evaluation: strategies and optimizations", IPM 1995; the
// document-at-a-time form of Strohman, Turtle & Croft, SIGIR 2005, and
// Mallia et al., ECIR 2019), over any ScoringCursor: decoded run-file lists
// (PostingCursor), the query layout's blocks (BlockCursor) or its quantized
// impacts (ImpactBlockCursor: integer scores, integer block maxima).
//
// Terms are ordered by their upper bound (the largest contribution any of
// their postings can make). Once the top k is full with threshold θ, the
// longest prefix of that order whose bounds sum to at most θ is
// "non-essential": a document containing only those terms cannot enter the
// top k, so candidates come from the essential lists only, and non-essential
// lists are only probed (next_geq) while the candidate's score plus the
// bounds still to add could beat θ.
//
// Block-max cursors (query.post) tighten this with the stored block maxima
// (block-max MaxScore: Chakrabarti, Chaudhuri & Ganti, ICDE 2011;
// Dimopoulos, Nepomnyachiy & Suel, WSDM 2013), per candidate and before
// anything is decoded:
//   - the block maxima of the candidate's blocks (essential lists on it, and
//     every non-essential list, read "shallow" without decoding) add up to a
//     bound for every docid up to the end of the first of those blocks; if it
//     cannot beat θ, the essential cursors jump past that end, so whole blocks
//     of the essential lists go by undecoded;
//   - otherwise the non-essential lists are probed while the partial score
//     plus their block maxima (not their list bounds) can still beat θ.
//
// The result is exactly the exhaustive top k (exhaustive_or): the same
// documents, the same scores bit for bit (contributions summed in query
// order), the same order; bounds are widened by query/pruning.hpp's slack.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "store/bm25.hpp"
#include "query/posting_cursor.hpp"
#include "query/pruning.hpp"
#include "query/query_stats.hpp"
#include "query/scoring_cursor.hpp"
#include "query/topk.hpp"

namespace invidx {

// `lists` in query order (the summing order), with max_score set;
// `norms` is Bm25::length_norm of every document.
std::vector<ScoredDocument> maxscore_or(std::span<const ScoredList> lists, std::span<const double> norms,
                                        const Bm25& bm25, size_t k, QueryStats* stats = nullptr);

// The same over any cursors, in query order, fresh; they are moved.
template <ScoringCursor Cursor>
std::vector<ScoredDocument> maxscore_or(std::span<Cursor> cursors, std::span<const double> norms, const Bm25& bm25,
                                        size_t k, QueryStats* stats = nullptr) {
    QueryStats local;
    TopK top(k);
    const size_t n = cursors.size();
    if (n > 0 && k > 0) {
        for (const auto& cursor : cursors) local.postings += cursor.size();
        // by_bound[i]: the cursor with the i-th smallest list bound.
        std::vector<Cursor*> by_bound(n);
        for (size_t t = 0; t < n; ++t) by_bound[t] = &cursors[t];
        std::stable_sort(by_bound.begin(), by_bound.end(),
                         [](const Cursor* a, const Cursor* b) { return a->max_score() < b->max_score(); });
        const auto query_position = [&](const Cursor* cursor) { return static_cast<size_t>(cursor - cursors.data()); };
        // bound_below[i]: the sum of the list bounds of by_bound[0..i-1].
        std::vector<double> bound_below(n + 1, 0.0);
        for (size_t i = 0; i < n; ++i) bound_below[i + 1] = bound_below[i] + by_bound[i]->max_score();
        // Block-max cursors, top k full: the same with the block maxima at the candidate.
        std::vector<double> block_below(n + 1, 0.0);
        std::vector<double> contributions(n, 0.0);  // by query position
        size_t first_essential = 0;                 // by_bound[0, first_essential) are non-essential

        while (first_essential < n) {
            uint32_t candidate = kNoDocument;
            for (size_t i = first_essential; i < n; ++i) candidate = std::min(candidate, by_bound[i]->docid());
            if (candidate == kNoDocument) break;
            ++local.documents_considered;
            const double threshold = top.threshold();
            const std::vector<double>* probe_below = &bound_below;

            if constexpr (BlockMaxCursor<Cursor>) {
                if (top.full()) {
                    // The block-max bound of every docid from the candidate to `next`, nothing decoded.
                    double bound = 0.0;
                    uint32_t next = kNoDocument;
                    for (size_t i = 0; i < n; ++i) {
                        Cursor& cursor = *by_bound[i];
                        if (i >= first_essential && cursor.docid() != candidate) {
                            next = std::min(next, cursor.docid());  // not in its list before that
                            continue;
                        }
                        const double block_max = cursor.block_max_score(candidate);
                        bound += block_max;
                        if (i < first_essential) block_below[i + 1] = block_below[i] + block_max;
                        const uint32_t last = cursor.block_last_docid();
                        if (last != kNoDocument) next = std::min(next, last + 1);
                    }
                    if (!may_enter_for<Cursor>(bound, threshold)) {
                        for (size_t i = first_essential; i < n; ++i) {
                            if (by_bound[i]->docid() == candidate) by_bound[i]->next_geq(next);
                        }
                        continue;
                    }
                    probe_below = &block_below;
                }
            }

            const double norm = norm_for<Cursor>(norms.data(), candidate);
            double partial = 0.0;  // for bounds only; the score itself is summed in query order
            for (size_t i = first_essential; i < n; ++i) {
                Cursor& cursor = *by_bound[i];
                if (cursor.docid() != candidate) continue;
                const double c = posting_score(cursor, bm25, norm);
                contributions[query_position(&cursor)] = c;
                partial += c;
                cursor.next();
            }
            bool pruned = false;
            for (size_t i = first_essential; i-- > 0;) {  // largest bound first
                if (!may_enter_for<Cursor>(partial + (*probe_below)[i + 1], threshold)) {
                    pruned = true;
                    break;
                }
                Cursor& cursor = *by_bound[i];
                cursor.next_geq(candidate);
                if (cursor.docid() != candidate) continue;
                const double c = posting_score(cursor, bm25, norm);
                contributions[query_position(&cursor)] = c;
                partial += c;
            }
            if (!pruned) {
                ++local.documents_scored;
                if (top.push({candidate, sum_in_query_order(contributions)})) {
                    const double raised = top.threshold();
                    while (first_essential < n && !may_enter_for<Cursor>(bound_below[first_essential + 1], raised)) ++first_essential;
                }
            }
            std::fill(contributions.begin(), contributions.end(), 0.0);
        }
    }
    add_block_counts(cursors, local);
    if (stats) *stats += local;
    return top.take_sorted();
}

}  // namespace invidx
