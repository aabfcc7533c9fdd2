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
#include "query/maxscore_loop.hpp"
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

// MaxScore's scoring in doubles, over any ScoringCursor: each contribution
// is kept by its term's query position and the document's score is summed in
// query order, so that it equals exhaustive_or's bit for bit; bounds compare
// with query/pruning.hpp's slack (none for integer impacts).
template <ScoringCursor Cursor>
class QueryOrderScoring {
public:
    using Score = double;
    using Top = TopK;

    // `cursors` in query order; `norms` as for maxscore_or.
    QueryOrderScoring(std::span<Cursor> cursors, std::span<const double> norms, const Bm25& bm25)
        : first_(cursors.data()), norms_(norms), bm25_(bm25), contributions_(cursors.size(), 0.0) {}

    static double list_bound(const Cursor& cursor) { return cursor.max_score(); }
    static double block_bound(Cursor& cursor, uint32_t target) { return cursor.block_max_score(target); }
    static bool may_enter(double bound, double threshold) { return may_enter_for<Cursor>(bound, threshold); }

    void start_document(uint32_t docid) { norm_ = norm_for<Cursor>(norms_.data(), docid); }
    double add(Cursor& cursor) {
        const double contribution = posting_score(cursor, bm25_, norm_);
        contributions_[static_cast<size_t>(&cursor - first_)] = contribution;
        return contribution;
    }
    // The running sum is for the bounds only: the score is summed again in query order.
    bool push(TopK& top, uint32_t docid, double /*running_sum*/) {
        return top.push({docid, sum_in_query_order(contributions_)});
    }
    void end_document() { std::fill(contributions_.begin(), contributions_.end(), 0.0); }

private:
    const Cursor* first_;
    std::span<const double> norms_;
    const Bm25& bm25_;
    double norm_ = 0.0;
    std::vector<double> contributions_;  // by query position, of the current document
};

// The same over any cursors, in query order, fresh; they are moved.
template <ScoringCursor Cursor>
std::vector<ScoredDocument> maxscore_or(std::span<Cursor> cursors, std::span<const double> norms, const Bm25& bm25,
                                        size_t k, QueryStats* stats = nullptr) {
    QueryOrderScoring<Cursor> scoring(cursors, norms, bm25);
    return maxscore_loop(cursors, scoring, k, stats);
}

}  // namespace invidx
