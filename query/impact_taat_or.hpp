// OR queries over quantized impacts, term at a time in docid windows: the
// accumulator-array strategy of impact-ordered engines (Anh & Moffat; JASS's
// score-at-a-time; PISA's ranked_or_taat over ranges), for the queries
// where document-at-a-time pruning has little to prune.
//
// When every list of a query has similar impacts (several frequent terms),
// no list becomes non-essential and the block maxima rarely exclude a
// candidate: block-max MaxScore then decodes nearly every block anyway and
// pays its per-candidate bookkeeping (cursor minimum, block-max bound,
// probes) for each of thousands of candidates. Here the docid space is cut
// into windows of kImpactWindowDocs documents; per window:
//   - the block maxima of every block overlapping the window add up to a
//     bound; once the top k is full, a window whose bound cannot beat the
//     threshold is passed over without decoding anything;
//   - otherwise every list adds its postings' impacts in the window into a
//     dense array of integer accumulators (a tight loop with no branches
//     per posting beyond the window test), and the array is scanned in
//     chunks whose maximum (a vectorized max) is compared with the
//     threshold before any document of the chunk is offered to the top k.
// Memory is one window of accumulators, whatever the collection's size.
//
// Exact: documents are offered in increasing docid order with their full
// integer scores, to the same key-ordered top k as impact_maxscore_or, so
// the result is the brute-force top k of the integer scores (ties by
// smaller docid), identical to impact_maxscore_or's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "query/query_stats.hpp"
#include "query/topk.hpp"
#include "store/query_postings.hpp"

namespace invidx {

inline constexpr uint32_t kImpactWindowDocs = uint32_t{1} << 14;

// `lists` (of a layout with impacts) in any order, each scored by its
// impacts times its integer query weight (`weights`, one per list;
// query/impact_weights.hpp; empty: all 1). The accumulators are 16, 32 or
// 64-bit, the narrowest that holds the largest score; the weighted maxima
// must add up to below 2^63 (impact_taat_suits checks it).
// `window_docs` (> 0) is the window's width in docids: tests use narrow ones.
std::vector<ScoredDocument> impact_taat_or(std::span<const QueryList* const> lists, std::span<const uint64_t> weights,
                                           size_t k, QueryStats* stats = nullptr, uint32_t window_docs = kImpactWindowDocs);
// Every weight 1.
std::vector<ScoredDocument> impact_taat_or(std::span<const QueryList* const> lists, size_t k, QueryStats* stats = nullptr,
                                           uint32_t window_docs = kImpactWindowDocs);

// Whether impact_taat_or should answer the OR query over `lists` of an index
// of `documents` documents rather than impact_maxscore_or: when there are
// two lists or more and they hold at least one posting per
// kImpactTaatDocsPerPosting documents. Below that the accumulator windows
// cost more than the few candidates document-at-a-time pruning looks at
// (rare terms with short lists); a single list needs no accumulation and
// its block maxima alone prune well. Otherwise the windows win at every
// query length and at k 10 and 1000 on the benchmark collections
// (docs/PERFORMANCE.md, "Impact scoring").
inline constexpr uint64_t kImpactTaatDocsPerPosting = 50;
bool impact_taat_suits(std::span<const QueryList* const> lists, std::span<const uint64_t> weights, uint64_t documents);
bool impact_taat_suits(std::span<const QueryList* const> lists, uint64_t documents);  // every weight 1

}  // namespace invidx
