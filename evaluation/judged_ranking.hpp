// One query's run as the measures see it: the judged level of each ranked
// document, and how many documents the qrels hold at each level.
//
// Ranks come from the scores, as trec_eval assigns them: by score
// descending, ties by docno descending (byte order), whatever order or rank
// column the run file has.
#pragma once

#include <span>
#include <vector>

#include "evaluation/qrels.hpp"
#include "evaluation/run_file.hpp"

namespace invidx::evaluation {

// The level of a ranked document the qrels do not list (trec_eval's
// RELVALUE_NONPOOL), and of one they list with a negative level: pooled but
// not judged (RELVALUE_UNJUDGED).
inline constexpr long kNotInQrels = -1;
inline constexpr long kPooledUnjudged = -2;

struct JudgedRanking {
    // Per rank, from the first: a judged level >= 0, or one of the two above.
    std::vector<long> levels;
    // judged_per_level[l]: documents of the query's qrels judged at level l
    // (retrieved or not), for l from 0 to the highest level.
    std::vector<long> judged_per_level;
    long relevance_level = 1;
    long relevant = 0;            // judged at relevance_level or above
    long relevant_retrieved = 0;  // of those, how many are ranked

    bool is_relevant(long level) const { return level >= relevance_level; }
};

// `retrieved` in any order; `judgments` the query's qrels (empty: none).
JudgedRanking judge_ranking(std::span<const RetrievedDocument> retrieved, const TopicJudgments& judgments,
                            long relevance_level);

}  // namespace invidx::evaluation
