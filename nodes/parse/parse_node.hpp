// The "parse" node: N parsers analyze batches of documents in parallel
// (docs/CONTENT.md §3-8: HTML rules, tokens, stop words, Porter stemming, trie collection);
// with "gpus", GPU parsers beside them take batches from the same queue
// (nodes/parse/gpu_parsers.hpp, docs/PIPELINE.md "GPU parsers").
#pragma once

#include <memory>
#include <vector>

#include "graph/build_plan.hpp"
#include "invidx/config.hpp"
#include "invidx/node.hpp"
#include "invidx/run_state.hpp"

namespace invidx {

// Settles the parse node's "count" and "gpus" against the machine (CPU
// parsers from the cores; GPU parsers from the GPUs present) into
// plan.parsing, before any node is made.
void resolve_parse_node(NodeOptions& options, const PipelineConfig& config, BuildPlan& plan);

// Makes the parse node from plan.parsing.
std::unique_ptr<Node> make_parse_node(NodeOptions& options, RunState& state);

// How large a parser's last batch came out per byte of text: its next
// batch's arrays are reserved at that size (plus a margin) at once, instead
// of growing by doubling, which copied them a few times over and touched
// fresh pages each time.
struct ParsedSizeHint {
    double occurrences_per_byte = 0;
    double term_bytes_per_byte = 0;
    double positions_per_byte = 0;
};

// Analyzes every document of `batch` with `analyzer` (one per thread);
// `hint` is read, then updated from this batch.
class Analyzer;
struct DocumentTerms;
ParsedBatch parse_batch(const DocBatch& batch, Analyzer& analyzer, DocumentTerms& scratch, ParsedSizeHint& hint);

}  // namespace invidx
