// A cluster build over the ranks of an MPI job (docs/FORMAT.md "Cluster
// builds"). Compiled only where CMake found MPI (INVIDX_HAVE_MPI); the
// pipeline calls it when the configuration has a "cluster" section.
//
//   mpirun -np 4 invidx-run configs/cluster.json --input crawl/ --output idx
//
// Rank 0 expands the input, locks the output and makes the temporary
// directory; every rank indexes its contiguous range of the sorted files
// into a part index there (docids from 0); each rank rewrites its part's
// postings as one run of the joined index, docids shifted by the documents
// of the ranks before it, and rank 0 joins documents and dictionaries in
// rank order (store/concatenate.hpp), so docids are the single machine's,
// and publishes. A rank that fails tells the others at once (they stop their
// shares early) and every rank fails, naming it and its reason; nothing is
// published.
#pragma once

#include "invidx/config.hpp"
#include "invidx/pipeline.hpp"
#include "pipelines/build_hooks.hpp"
#include "invidx/registry.hpp"

namespace invidx {

// Initializes MPI when nobody has (finalized at exit). On rank 0 returns the
// whole build's report ("ranks", "per_rank"); on the others a report of
// that rank's share only, with "rank" set. Throws on every rank when any
// rank failed: invidx::Interrupted where that rank was stopped, else an
// invidx::Error naming the rank that failed and its reason.
BuildReport run_cluster_build(const PipelineConfig& config, const RunOptions& options, const BuildHooks& hooks,
                              const NodeRegistry& registry);

}  // namespace invidx
