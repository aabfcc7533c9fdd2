// The "read" node of a build from a DocumentSource (build_from_documents):
// the graph's source, like nodes/read's, but its blocks are the pushed JSONL
// blocks of the one input file the build lists for them. The same limiter of
// `memory.tokens` bounds the blocks in flight.
#pragma once

#include <memory>

#include "invidx/config.hpp"
#include "invidx/document_source.hpp"
#include "invidx/node.hpp"
#include "invidx/run_state.hpp"

namespace invidx {

std::unique_ptr<Node> make_document_read_node(NodeOptions& options, RunState& state, DocumentSource& documents);

}  // namespace invidx
