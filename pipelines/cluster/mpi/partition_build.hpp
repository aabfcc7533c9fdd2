// A partition-and-index cluster build (Wei & JaJa §IV-V; docs/PIPELINE.md
// and docs/FORMAT.md, "Cluster builds"), the default cluster mode:
//
// Plan: rank 0 expands the input and takes the output; every rank learns
//    the sorted file list and parses one contiguous, size-balanced range of it.
// Sample and own: every rank samples its own range; rank 0 gathers the
//    samples, binds each trie collection to one indexer among all ranks'
//    indexers for the whole build, and broadcasts that ownership
//    (collection_ownership.hpp).
// Exchange: every rank runs its graph up to "regroup", then a distributor:
//    the slices of collections this rank's indexers own go to them; the
//    others, packed per destination rank, go to their owners (postings
//    only, never text), one message per destination per batch. Each rank
//    indexes every other rank's stream in a pipeline of its own (receive,
//    index, compress, flush), so a run holds one source's documents (docids
//    local to it).
// Join: once all have parsed, the document counts give each source its
//    first docid; every rank moves its per-source parts' runs into the
//    joined index (lists concatenated in source order, docids shifted) and
//    joins its range of the dictionary and its own documents (or rank 0
//    joins them alone: "join": "serial").
// Finish: rank 0 adopts the joined files and publishes, manifest last.
// The ranks tell each other what they did in typed control messages
// (control_messages.hpp), a failure being a message of its own.
// A rank that fails makes every rank stop, naming it and its reason; nothing
// is published.
#pragma once

#include "invidx/config.hpp"
#include "invidx/pipeline.hpp"
#include "pipelines/build_hooks.hpp"
#include "invidx/registry.hpp"

namespace invidx {

// As run_cluster_build (cluster_build.hpp), for "mode": "partition".
BuildReport run_partition_build(const PipelineConfig& config, const RunOptions& options, const BuildHooks& hooks,
                                const NodeRegistry& registry);

}  // namespace invidx
