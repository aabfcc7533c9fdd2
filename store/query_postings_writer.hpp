// Writes query.post, the query-ready layout (docs/FORMAT.md,
// "query.post"): one list per term, in blocks of 128 postings, each block
// with its last docid (a skip: blocks before a target docid are passed over
// without decoding) and its largest BM25 term-frequency part (block-max:
// Ding & Suel 2011), docids and tfs encoded apart by one codec of
// store/codecs/ so tfs are decoded only for the postings that are scored.
// With impact bits (version 2, `invidx weight`) every block also holds its
// postings' quantized BM25 impacts (store/impacts.hpp) and their maximum.
#pragma once

#include <optional>
#include <stop_token>

#include "store/bm25.hpp"
#include "store/binary_io.hpp"
#include "store/codecs/codec.hpp"
#include "store/impacts.hpp"
#include "store/index_reader.hpp"

namespace invidx {

struct QueryPostingsOptions {
    // The block maxima (and weights) are computed with these and the index's
    // own document count and average length, exactly as a Searcher with
    // these parameters scores.
    Bm25Parameters parameters;
    // Also the quantized impacts, with this many bits (version 2); none: version 1.
    std::optional<unsigned> impact_bits;
    // Or impacts computed already (version 2 with their bits and largest
    // weight), stored as they are: the same impacts and largest weight give
    // the same bytes as impact_bits. Not both. Must outlive the call.
    const PostingImpacts* impacts = nullptr;
    // Or impacts that are the postings' own tfs (version 3, impact_source
    // tf; store/tf_impacts.hpp), with the fewest bits that hold the largest
    // tf: a tf above 65535 is an invidx::Error naming the term. Not with the two above.
    bool tf_impacts = false;
    // Checked between batches of terms: a stop request is invidx::Interrupted.
    std::stop_token stop;
};

// Every term of `index`, in dictionary order; terms are encoded in parallel
// (oneTBB) in batches and written in order, so the bytes do not depend on
// the thread count. Precomputed impacts that do not fit the index (a term's
// count, an impact out of range) are an invidx::Error.
void write_query_postings(const IndexReader& index, const codecs::Codec& codec, BinaryWriter& out,
                          const QueryPostingsOptions& options = {});

}  // namespace invidx
