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
#include "invidx/config.hpp"
#include "invidx/messages.hpp"
#include "invidx/node.hpp"
#include "invidx/run_state.hpp"

namespace invidx {

// The index node as the pipeline sees it: what it is given before the graph
// runs, and what it gives back after.
class IndexStage : public Stage<RegroupedBatch, RunPostings> {
public:
    // One entry per indexer, in indexer order: "cpu" or "gpu:N".
    virtual const std::vector<std::string>& indexer_devices() const = 0;
    // Makes the indexers, each owning the collections `assignment` gives it
    // (one owner per collection, for indexer_devices().size() indexers).
    // Once, before the graph runs.
    virtual void take_assignment(const CollectionAssignment& assignment) = 0;
    // Every indexer's terms together (combined in finish()); once, after the
    // graph has drained.
    virtual std::vector<DictionaryTerm> take_dictionary() = 0;
};

// The devices of the indexers an "index" entry of the pipeline makes, in
// indexer order ("cpu" or "gpu:N"), without making them: what a cluster
// build tells rank 0 before the collections are assigned. Throws
// ConfigError for a bad "indexers" list.
std::vector<std::string> indexer_devices_of(const PipelineConfig& config, const NodeSpec& spec);

// Makes an IndexStage; it indexes nothing until given its assignment.
std::unique_ptr<Node> make_index_node(NodeOptions& options, RunState& state);

}  // namespace invidx
