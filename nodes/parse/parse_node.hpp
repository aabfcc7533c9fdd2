// The "parse" node: N parsers analyze batches of documents in parallel (SPEC
// §2-§5: HTML rules, tokens, stop words, Porter stemming, trie collection);
// with "gpus", GPU parsers beside them take batches from the same queue
// (nodes/parse/gpu_parsers.hpp, docs/PIPELINE.md "GPU parsers").
#pragma once

#include <memory>
#include <vector>

#include "invidx/config.hpp"
#include "invidx/node.hpp"
#include "invidx/run_state.hpp"

namespace invidx {

std::unique_ptr<Node> make_parse_node(NodeOptions& options, RunState& state);

// Whether a parse node of this spec leaves all parsing to GPUs (its "gpus"
// give some on this machine and build, and its "count" is "auto" or 0):
// the cores are then free for the other nodes, and the index node's
// automatic count of CPU indexers grows (nodes/index/index_node.cpp). A bad
// spec is left for make_parse_node to report: false.
bool parses_on_gpus_only(const NodeSpec& spec);

// The CUDA ordinals a parse node of this spec parses on (its "gpus" on this
// machine and build), in its order; empty for a bad spec, as above. With
// `keeping_terms_only`, only those whose parsers may keep terms on the
// device for a GPU indexer there ("resident_terms", true by default).
std::vector<int> gpu_parser_ordinals(const NodeSpec& spec, bool keeping_terms_only = false);

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
