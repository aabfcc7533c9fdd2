#include "evaluation/judged_ranking.hpp"

#include <algorithm>

namespace invidx::evaluation {

JudgedRanking judge_ranking(std::span<const RetrievedDocument> retrieved, const TopicJudgments& judgments,
                            long relevance_level) {
    JudgedRanking ranking;
    ranking.relevance_level = relevance_level;

    std::vector<const RetrievedDocument*> order;
    order.reserve(retrieved.size());
    for (const auto& document : retrieved) order.push_back(&document);
    std::sort(order.begin(), order.end(), [](const RetrievedDocument* a, const RetrievedDocument* b) {
        if (a->score != b->score) return a->score > b->score;
        return a->docno > b->docno;
    });

    ranking.levels.reserve(order.size());
    for (const RetrievedDocument* document : order) {
        const auto judged = judgments.find(document->docno);
        long level = kNotInQrels;
        if (judged != judgments.end()) level = judged->second < 0 ? kPooledUnjudged : judged->second;
        ranking.levels.push_back(level);
        if (level >= 0 && ranking.is_relevant(level)) ++ranking.relevant_retrieved;
    }

    for (const auto& [docno, level] : judgments) {
        if (level < 0) continue;
        if (static_cast<size_t>(level) >= ranking.judged_per_level.size()) ranking.judged_per_level.resize(level + 1, 0);
        ++ranking.judged_per_level[level];
        if (ranking.is_relevant(level)) ++ranking.relevant;
    }
    return ranking;
}

}  // namespace invidx::evaluation
