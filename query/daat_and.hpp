// Conjunctive (AND) queries, document at a time: candidates come from the
// shortest list, every other list skips to them (PostingCursor: galloping in
// the decoded docids; BlockCursor: over whole blocks by their last docid,
// decoding only the block it stops in). Tfs are read only for documents in
// every list.
//
// On block-max cursors, once the top k is full, a candidate whose block
// maxima add up to no more than the threshold is skipped without looking at
// the other lists, and with it every docid up to the end of the shortest of
// those blocks (the block-max idea of Ding & Suel, SIGIR 2011, applied to an
// intersection). Bounds are widened as in maxscore_or, so the result is
// exactly the exhaustive top k.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

#include "store/bm25.hpp"
#include "query/posting_cursor.hpp"
#include "query/pruning.hpp"
#include "query/query_stats.hpp"
#include "query/scoring_cursor.hpp"
#include "query/topk.hpp"

namespace invidx {

// The top k documents containing every list's term. `lists` in query order
// (the summing order); `norms` is Bm25::length_norm of every document.
std::vector<ScoredDocument> daat_and(std::span<const ScoredList> lists, std::span<const double> norms, const Bm25& bm25,
                                     size_t k, QueryStats* stats = nullptr);

// The same over any cursors, in query order; they are moved.
template <ScoringCursor Cursor>
std::vector<ScoredDocument> daat_and(std::span<Cursor> cursors, std::span<const double> norms, const Bm25& bm25, size_t k,
                                     QueryStats* stats = nullptr) {
    QueryStats local;
    TopK top(k);
    if (!cursors.empty() && k > 0) {
        for (const auto& cursor : cursors) local.postings += cursor.size();
        // Intersection order: shortest list first, so mismatches are found early.
        std::vector<size_t> by_length(cursors.size());
        std::iota(by_length.begin(), by_length.end(), size_t{0});
        std::sort(by_length.begin(), by_length.end(), [&](size_t a, size_t b) { return cursors[a].size() < cursors[b].size(); });
        Cursor& driver = cursors[by_length[0]];
        std::vector<double> contributions(cursors.size(), 0.0);

        // Block-max cursors: the sum of the block maxima of the blocks that hold
        // the candidate, valid for every candidate up to the first of those
        // blocks' ends (bound_until), so it is added up once per such range.
        bool bound_valid = false;
        double bound = 0.0;
        uint32_t bound_until = 0;

        uint32_t candidate = driver.docid();
        while (candidate != kNoDocument) {
            if constexpr (BlockMaxCursor<Cursor>) {
                if (top.full()) {
                    if (!bound_valid || candidate > bound_until) {
                        bound = 0.0;
                        bound_until = kNoDocument;
                        for (auto& cursor : cursors) {
                            bound += cursor.block_max_score(candidate);
                            bound_until = std::min(bound_until, cursor.block_last_docid());
                        }
                        bound_valid = true;
                    }
                    if (!may_enter_for<Cursor>(bound, top.threshold())) {
                        // No docid up to the first of these blocks' ends can enter.
                        if (bound_until == kNoDocument) break;
                        driver.next_geq(bound_until + 1);
                        candidate = driver.docid();
                        continue;
                    }
                }
            }
            // Every other list to >= candidate; a larger docid becomes the new candidate.
            bool all_match = true;
            for (size_t i = 1; i < by_length.size(); ++i) {
                Cursor& cursor = cursors[by_length[i]];
                cursor.next_geq(candidate);
                if (cursor.docid() != candidate) {
                    all_match = false;
                    candidate = cursor.docid();
                    break;
                }
            }
            if (!all_match) {
                if (candidate == kNoDocument) break;
                driver.next_geq(candidate);
                candidate = driver.docid();
                continue;
            }
            ++local.documents_considered;
            ++local.documents_scored;
            const double norm = norm_for<Cursor>(norms.data(), candidate);
            for (size_t t = 0; t < cursors.size(); ++t) contributions[t] = posting_score(cursors[t], bm25, norm);
            top.push({candidate, sum_in_query_order(contributions)});
            driver.next();
            candidate = driver.docid();
        }
    }
    add_block_counts(cursors, local);
    if (stats) *stats += local;
    return top.take_sorted();
}

}  // namespace invidx
