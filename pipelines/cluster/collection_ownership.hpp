// Collection ownership in a partition cluster build (Wei & JaJa §III.E over
// all ranks): every rank samples its own files, rank 0 binds each trie
// collection to one indexer among all ranks' indexers for the whole build,
// and every rank works out from that which collections its own indexers
// index and which rank each of the others goes to. No MPI here: the
// messages travel in the cluster build's phases.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "invidx/collection_assignment.hpp"
#include "invidx/config.hpp"
#include "invidx/messages.hpp"
#include "pipelines/cluster/control_messages.hpp"

namespace invidx {

// This rank's sample of `share` (its own files), its indexers' `devices`
// and which of them its GPU parsers feed on their device (BuildPlan::fed_on_device).
SampleMessage sample_own_files(const PipelineConfig& config, const std::vector<InputFile>& share,
                               const std::vector<std::string>& devices, const std::vector<bool>& fed_on_device);

// Rank 0, from every rank's sample in rank order: the ownership, or a
// failure joining the failures some ranks sent instead of a sample.
ControlMessage decide_ownership(const PipelineConfig& config, const std::vector<ControlMessage>& samples);

// The ownership as one rank sees it.
struct RankOwnership {
    OwnershipMessage global;
    CollectionAssignment local;  // over this rank's indexers; the others' collections owned by none
    std::shared_ptr<const std::vector<uint32_t>> owner_rank;  // kCollections entries
};

// Throws an Error naming `who` where the ownership was made for another
// number of this rank's indexers than `indexers`.
RankOwnership rank_ownership(OwnershipMessage global, int rank, size_t indexers, const std::string& who);

}  // namespace invidx
