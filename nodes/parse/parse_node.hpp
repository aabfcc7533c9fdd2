// The "parse" node: N parsers analyze batches of documents in parallel (SPEC
// §2-§5: HTML rules, tokens, stop words, Porter stemming, trie collection);
// with "gpus", GPU parsers beside them take batches from the same queue
// (nodes/parse/gpu_parsers.hpp, docs/PIPELINE.md "GPU parsers").
#pragma once

#include <memory>

#include "invidx/config.hpp"
#include "invidx/node.hpp"
#include "invidx/run_state.hpp"

namespace invidx {

std::unique_ptr<Node> make_parse_node(NodeOptions& options, RunState& state);

// Analyzes every document of `batch` with `analyzer` (one per thread).
class Analyzer;
struct DocumentTerms;
ParsedBatch parse_batch(const DocBatch& batch, Analyzer& analyzer, DocumentTerms& scratch);

}  // namespace invidx
