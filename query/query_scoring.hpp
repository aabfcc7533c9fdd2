// How a query scores documents: BM25 evaluated per posting at query time, or
// the sum of the postings' precomputed, quantized BM25 impacts (integers,
// store/impacts.hpp) that `invidx weight` stores in the query layout.
#pragma once

namespace invidx {

// kImpact ranks by the quantized scores, exactly (ties by smaller docid);
// the ranking approximates kBm25's, the finer the more bits.
enum class QueryScoring { kBm25, kImpact };

}  // namespace invidx
