#include "nodes/parse/parse_node.hpp"

#include <algorithm>
#include <thread>

#include <oneapi/tbb/enumerable_thread_specific.h>

#include "graph/transform_stage.hpp"
#include "analysis/analyzer.hpp"

namespace invidx {

ParsedBatch parse_batch(const DocBatch& batch, Analyzer& analyzer, DocumentTerms& terms, ParsedSizeHint& hint) {
    ParsedBatch out;
    out.sequence = batch.sequence;
    out.first_docid = batch.first_docid;
    out.end_of_input = batch.end_of_input;
    out.lease = batch.lease;
    out.docs.reserve(batch.docs.size());
    const bool positional = analyzer.settings().positions;
    const auto reserve = [&](auto& array, double per_byte) {
        array.reserve(static_cast<size_t>(per_byte * 1.125 * static_cast<double>(batch.text_bytes)));
    };
    reserve(out.occurrences, hint.occurrences_per_byte);
    reserve(out.terms, hint.term_bytes_per_byte);
    if (positional) reserve(out.positions, hint.positions_per_byte);
    for (size_t local = 0; local < batch.docs.size(); ++local) {
        const DocRecord& doc = batch.docs[local];
        const std::string_view text = batch.text_of(doc);
        analyzer.analyze(text, doc.html, terms);
        out.docs.push_back(ParsedDoc{doc.name, terms.length, doc.file_ordinal, doc.source_offset});
        const auto arena_base = static_cast<uint32_t>(out.terms.size());
        const auto positions_base = static_cast<uint32_t>(out.positions.size());
        out.terms.append(terms.bytes);
        if (positional) out.positions.insert(out.positions.end(), terms.positions.begin(), terms.positions.end());
        for (const auto& term : terms.terms) {
            out.occurrences.push_back(TermOccurrence{static_cast<uint32_t>(local), term.collection,
                                                     arena_base + term.term_offset, term.term_length, term.tf,
                                                     positional ? positions_base + term.first_position_index : 0});
        }
        out.text_bytes += doc.text_length;
        out.tokens += terms.tokens;
    }
    if (batch.text_bytes != 0) {
        const auto bytes = static_cast<double>(batch.text_bytes);
        hint = ParsedSizeHint{.occurrences_per_byte = static_cast<double>(out.occurrences.size()) / bytes,
                              .term_bytes_per_byte = static_cast<double>(out.terms.size()) / bytes,
                              .positions_per_byte = static_cast<double>(out.positions.size()) / bytes};
    }
    return out;
}

namespace {

// Per-thread analysis state: libstemmer handles are not thread-safe.
struct ParserState {
    explicit ParserState(const AnalysisSettings& settings) : analyzer(settings) {}
    Analyzer analyzer;
    DocumentTerms terms;
    ParsedSizeHint sizes;
};

}  // namespace

std::unique_ptr<Node> make_parse_node(NodeOptions& options, RunState& state) {
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    // "auto": three parsers for every four cores, rounded up (parsing is the
    // costly stage; on 2 cores two parsers measured faster than one: docs/PERFORMANCE.md).
    const unsigned parsers = options.count(std::max(1u, (hardware * 3 + 3) / 4), 1);
    using Parse = TransformStage<DocBatch, ParsedBatch>;
    auto parsers_state = std::make_shared<oneapi::tbb::enumerable_thread_specific<ParserState>>(state.config.analysis);
    return std::make_unique<Parse>(
        state.graph, parsers,
        [&state, parsers_state](const std::shared_ptr<const DocBatch>& batch) {
            ParserState& local = parsers_state->local();
            auto out = std::make_shared<ParsedBatch>(parse_batch(*batch, local.analyzer, local.terms, local.sizes));
            state.tokens_indexed += out->tokens;
            return out;
        },
        Parse::ByteCounts{.in = [](const DocBatch& in) -> uint64_t { return in.text_bytes; },
                          .out = [](const ParsedBatch& out) -> uint64_t { return out.terms.size(); }});
}

}  // namespace invidx
