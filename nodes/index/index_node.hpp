// The "index" node: restores document order (batch sequence after the parallel
// parsers, so postings come out sorted without a sort: Wei & JaJa §III.F),
// cuts the stream into runs, and fans every batch out to the indexers, each
// owning a fixed set of trie collections chosen by the sampler.
//
//   {"kind": "index", "indexers": [{"kind": "cpu_btree", "count": 2}]}
#pragma once

#include <memory>

#include "invidx/config.hpp"
#include "invidx/node.hpp"
#include "invidx/run_state.hpp"

namespace invidx {

std::unique_ptr<Node> make_index_node(NodeOptions& options, RunState& state);

}  // namespace invidx
