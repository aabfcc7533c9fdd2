// The optional post-processing step of Wei & JaJa (§III.F): each term's
// partial lists, one per run, are combined into a single list, so a query
// reads one contiguous list per term. The result is a new index with one
// run file, written beside the old one and renamed over it atomically
// (IndexWriter's publish protocol); its content and CIFF export are unchanged
// and its document store (documents-text.bin), if any, is copied as it is.
// With a query codec the new index also holds the query-ready layout.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>

#include "store/bm25.hpp"
#include "store/impacts.hpp"

namespace invidx {

struct MergeOptions {
    // Also write query.post, the query-ready layout (store/query_postings_writer.hpp),
    // with this codec (store/codecs/registry.hpp); none: the merged run only.
    std::optional<std::string> query_codec;
    // With a query codec: the BM25 parameters of its block maxima, and
    // quantized impacts with this many bits (query.post version 2,
    // store/impacts.hpp); none: no impacts (version 1).
    Bm25Parameters query_parameters;
    std::optional<unsigned> impact_bits;
    // Or impacts of the index's postings computed already (on a GPU), stored
    // as they are; not with impact_bits. Must outlive the call.
    const PostingImpacts* impacts = nullptr;
    // Or impacts that are the postings' tfs (store/tf_impacts.hpp); not with the two above.
    bool tf_impacts = false;
    // A stop request (SIGINT, SIGTERM: tools/invidx/interrupts.hpp) is
    // honoured between terms and batches until publishing begins: the
    // temporary directory is removed, the index left as it was, and
    // invidx::Interrupted thrown.
    std::stop_token stop;
    // Called with "merge:writing" once the temporary directory exists, just
    // before the first check of `stop` (tests stop the process there).
    std::function<void(const std::string&)> at_step;
};

// Holds the merged run's compressed lists in memory while it writes them
// (about the size of the index's run files). An unknown codec is an
// invidx::Error listing the known ones, before anything is written.
void merge_runs(const std::filesystem::path& index_dir, const MergeOptions& options = {});

}  // namespace invidx
