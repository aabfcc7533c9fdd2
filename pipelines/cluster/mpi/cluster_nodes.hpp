// The two flow-graph nodes of a partition-and-index cluster build
// (docs/PIPELINE.md "Cluster builds"), made by the cluster build itself, not
// named in a pipeline's JSON:
//
//   distribute (RegroupedBatch -> RegroupedBatch), after "regroup" on every
//     rank: encodes, for every other rank, the slices of each batch whose
//     collections that rank's indexers own (several batches at once), then,
//     in batch order, posts those messages to the exchange (holding one of
//     the rank's exchange credits, or the batch's token while none is free)
//     and passes the batch on to this rank's own indexers, which index only
//     the collections they own.
//   receive (source of RegroupedBatch) of the pipeline that indexes another
//     rank's stream here: the messages that rank sent, from the exchange,
//     decoded here several at once (a malformed one fails this pipeline,
//     naming the source rank).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "invidx/config.hpp"
#include "invidx/node.hpp"
#include "invidx/run_state.hpp"
#include "pipelines/cluster/exchange_credits.hpp"
#include "pipelines/cluster/mpi/postings_exchange.hpp"

namespace invidx {

// owner_rank: kCollections entries, the rank whose indexer owns each;
// credits: shared by the rank's batches out on other ranks.
std::unique_ptr<Node> make_distribute_node(NodeOptions& options, RunState& state, PostingsExchange& exchange,
                                           std::shared_ptr<ExchangeCredits> credits,
                                           std::shared_ptr<const std::vector<uint32_t>> owner_rank);

std::unique_ptr<Node> make_receive_node(NodeOptions& options, RunState& state, ReceiveChannel& channel, int source);

}  // namespace invidx
