// The "index" node: restores document order (batch sequence after the parallel
// parsers, so postings come out sorted without a sort: Wei & JaJa §III.F),
// cuts the stream into runs, and fans every batch out to the indexers, each
// owning a fixed set of trie collections chosen by the sampling step
// (nodes/sample/sample_step.hpp).
//
//   {"kind": "index", "indexers": [{"kind": "cpu_btree", "count": 2}]}
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "invidx/collection_assignment.hpp"
#include "graph/build_plan.hpp"
#include "invidx/config.hpp"
#include "invidx/device.hpp"
#include "invidx/messages.hpp"
#include "invidx/node.hpp"
#include "invidx/run_state.hpp"

namespace invidx {

// The index node as the pipeline sees it: what it is given before the graph
// runs, and what it gives back after.
class IndexStage : public Stage<RegroupedBatch, RunPostings> {
public:
    // One entry per indexer, in indexer order.
    virtual const std::vector<Device>& indexer_devices() const = 0;
    // Makes the indexers, each owning the collections `assignment` gives it
    // (one owner per collection, for indexer_devices().size() indexers).
    // Once, before the graph runs.
    virtual void take_assignment(const CollectionAssignment& assignment) = 0;
    // Every indexer's terms together (combined in finish()); once, after the
    // graph has drained.
    virtual std::vector<DictionaryTerm> take_dictionary() = 0;
};

// Settles the index node's indexers (their counts, and "device": "auto"
// from the GPUs that parse) into plan.indexing, before any node is made.
void resolve_index_node(NodeOptions& options, const PipelineConfig& config, BuildPlan& plan);

// Makes an IndexStage; it indexes nothing until given its assignment.
std::unique_ptr<Node> make_index_node(NodeOptions& options, RunState& state);

}  // namespace invidx
