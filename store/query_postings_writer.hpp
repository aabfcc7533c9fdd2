// Writes query.post, the query-ready layout (docs/FORMAT.md,
// "query.post"): one list per term, in blocks of 128 postings, each block
// with its last docid (a skip: blocks before a target docid are passed over
// without decoding) and its largest BM25 term-frequency part (block-max:
// Ding & Suel 2011), docids and tfs encoded apart by one codec of
// store/codecs/ so tfs are decoded only for the postings that are scored.
#pragma once

#include "store/bm25.hpp"
#include "store/binary_io.hpp"
#include "store/codecs/codec.hpp"
#include "store/index_reader.hpp"

namespace invidx {

// Every term of `index`, in dictionary order. The block maxima are computed
// with `parameters` and the index's own document count and average length,
// exactly as a Searcher with those parameters scores.
void write_query_postings(const IndexReader& index, const codecs::Codec& codec, BinaryWriter& out,
                          Bm25Parameters parameters = {});

}  // namespace invidx
