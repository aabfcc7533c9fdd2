// Impacts that are the postings' own tfs (query.post version 3 with
// impact_source "tf"; docs/FORMAT.md): for collections whose documents
// arrive pre-weighted (learned sparse models: a jsonvector document's term
// weight becomes the posting's tf; CIFF files of Anserini's and PISA's
// impact indexes carry their impacts as tfs), `search --scoring impact`
// must rank by those weights themselves, not by BM25 quantized from them.
//
// A pre-weighted (jsonvector) build writes this layout itself before it
// publishes (write_tf_impact_file): the index appears with its impacts or
// not at all. For an index published already (CIFF import, an older
// build), call write_tf_impact_layout(dir) to give it that query layout.
// It rewrites the index as `invidx merge --layout query` does (merge_runs:
// one run, atomically replaced), with impacts equal to the tfs and
// impact_bits the fewest that hold the largest tf. `invidx weight IDX
// --impacts tf` is this call.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stop_token>
#include <string>

#include "store/bm25.hpp"
#include "store/index_reader.hpp"

namespace invidx {

// The largest tf an impact can hold: impacts have at most 16 bits.
inline constexpr uint32_t kMaxTfImpact = 65535;

// The fewest bits N in 1..16 with 2^N − 1 >= largest_tf (1 for 0 or 1);
// largest_tf above kMaxTfImpact is an invidx::Error.
unsigned tf_impact_bits(uint32_t largest_tf);

// The largest tf of the index's postings (0 when it has none), every list
// decoded, terms in parallel. A tf above kMaxTfImpact is an invidx::Error
// naming the term and the tf.
uint32_t largest_tf(const IndexReader& index);

struct TfImpactLayoutOptions {
    // The query layout's codec (store/codecs/registry.hpp); none: the
    // index's present query layout's, else bp128 (merge --layout query's default).
    std::optional<std::string> codec;
    // The BM25 parameters of the layout's block maxima (it still serves
    // BM25 queries); none: the present layout's, else CONTENT.md §10's defaults.
    std::optional<Bm25Parameters> parameters;
    // A stop request is honoured as merge_runs honours it (invidx::Interrupted).
    std::stop_token stop;
};

class IndexWriter;

// The query layout of an index not yet published, with the tfs as impacts:
// `staged` reads what `writer` has written (IndexWriter::complete()), and
// query.post goes into `writer`, so publish() makes the index and its
// impacts appear at once. Codec and parameters as write_tf_impact_layout's
// for an index without a layout (bp128, CONTENT.md §10's defaults). Returns
// the impact bits; none, with nothing written and `why` naming the term,
// when a tf is above kMaxTfImpact.
std::optional<unsigned> write_tf_impact_file(IndexWriter& writer, const IndexReader& staged,
                                             const TfImpactLayoutOptions& options = {}, std::string* why = nullptr);

// Rewrites the index in `index_directory` (merge_runs) with a query layout
// whose impacts are the tfs; returns the impact bits written. A tf above
// kMaxTfImpact is an invidx::Error naming the term, before anything is written.
unsigned write_tf_impact_layout(const std::filesystem::path& index_directory, const TfImpactLayoutOptions& options = {});

}  // namespace invidx
