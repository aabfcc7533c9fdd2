// What a query asks for besides its text: how many results, which documents
// (the mode), how they are scored, by which algorithm, and on which of the
// Searcher's devices.
#pragma once

#include <cstddef>
#include <optional>

#include "query/algorithm.hpp"
#include "query/query_device.hpp"
#include "query/query_mode.hpp"
#include "query/query_scoring.hpp"

namespace invidx {

struct SearchOptions {
    size_t k = 10;
    QueryMode mode = QueryMode::kOr;
    Algorithm algorithm = Algorithm::kBlockMaxMaxscore;
    // kGpu: the GPU the Searcher was made with (query/gpu_evaluator.hpp):
    // the same hits and scores as the CPU, bit for bit; phrases stay on the
    // CPU. Of the algorithm only the lists' source counts there: kMaxscore
    // reads the run files, the others the query layout when the index has one.
    QueryDevice device = QueryDevice::kCpu;
    // kImpact: scores are sums of the query layout's quantized impacts, in
    // integers, whatever the algorithm (query/cpu_evaluator.hpp). An index
    // without impacts, or a phrase, is a QueryError.
    QueryScoring scoring = QueryScoring::kBm25;
    // BM25's k1 (finite, >= 0) and b (in [0, 1]) for this query; absent:
    // the Searcher's (CONTENT.md §10: 0.9 and 0.4). Exact whatever k1 and b
    // the query layout's block maxima were made with
    // (query/bm25_weighting.hpp). With kImpact a QueryError: impacts are
    // fixed when `invidx weight` runs.
    std::optional<double> k1;
    std::optional<double> b;
};

}  // namespace invidx
