// The "flush" node: the graph's sink. Writes one postings file per run (its
// header maps each term's slot to its partial list: Wei & JaJa §III.F) and the
// document table, in docid order; at the end, the dictionary it is handed.
#pragma once

#include <memory>
#include <vector>

#include "invidx/config.hpp"
#include "invidx/messages.hpp"
#include "invidx/node.hpp"
#include "invidx/run_state.hpp"

namespace invidx {

// The flush node as the pipeline sees it: after the graph has drained, the
// pipeline hands it the index node's dictionary.
class FlushStage : public SinkStage<CompressedRun> {
public:
    // Writes dictionary.bin: once, after finish() found every run written.
    virtual void write_dictionary(std::vector<DictionaryTerm> dictionary) = 0;
};

std::unique_ptr<Node> make_flush_node(NodeOptions& options, RunState& state);

}  // namespace invidx
