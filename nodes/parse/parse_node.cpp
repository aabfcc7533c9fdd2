#include "nodes/parse/parse_node.hpp"

#include <algorithm>
#include <thread>

#include <oneapi/tbb/enumerable_thread_specific.h>

#include "graph/guard.hpp"
#include "analysis/analyzer.hpp"

namespace invidx {

ParsedBatch parse_batch(const DocBatch& batch, Analyzer& analyzer, DocumentTerms& terms) {
    ParsedBatch out;
    out.sequence = batch.sequence;
    out.first_docid = batch.first_docid;
    out.end_of_input = batch.end_of_input;
    out.lease = batch.lease;
    out.docs.reserve(batch.docs.size());
    const bool positional = analyzer.settings().positions;
    for (size_t local = 0; local < batch.docs.size(); ++local) {
        const DocRecord& doc = batch.docs[local];
        const std::string_view text = std::string_view(batch.text).substr(doc.text_offset, doc.text_length);
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
    return out;
}

namespace {

namespace flow = oneapi::tbb::flow;
using In = std::shared_ptr<const DocBatch>;
using Out = std::shared_ptr<const ParsedBatch>;

// Per-thread analysis state: libstemmer handles are not thread-safe.
struct ParserState {
    explicit ParserState(const AnalysisSettings& settings) : analyzer(settings) {}
    Analyzer analyzer;
    DocumentTerms terms;
};

class ParseNode final : public Stage<DocBatch, ParsedBatch> {
public:
    ParseNode(RunState& state, unsigned parsers)
        : state_(state),
          parsers_(state.config.analysis),
          node_(state.graph, parsers, [this](const In& batch) {
              return run_guarded(metrics_, [&] { return parse(*batch); });
          }) {
        metrics_.concurrency = parsers;
    }

    flow::receiver<In>& input_port() override { return node_; }
    flow::sender<Out>& output_port() override { return node_; }

private:
    Out parse(const DocBatch& batch) {
        auto busy = metrics_.busy_scope();
        ++metrics_.items_in;
        metrics_.bytes_in += batch.text.size();
        ParserState& local = parsers_.local();
        auto out = std::make_shared<ParsedBatch>(parse_batch(batch, local.analyzer, local.terms));
        state_.tokens_indexed += out->tokens;
        ++metrics_.items_out;
        metrics_.bytes_out += out->terms.size();
        return out;
    }

    RunState& state_;
    oneapi::tbb::enumerable_thread_specific<ParserState> parsers_;
    flow::function_node<In, Out> node_;
};

}  // namespace

std::unique_ptr<Node> make_parse_node(NodeOptions& options, RunState& state) {
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    // "auto": three parsers for every four cores, rounded up (parsing is the
    // costly stage; on 2 cores two parsers measured faster than one: docs/PERFORMANCE.md).
    const unsigned parsers = options.count(std::max(1u, (hardware * 3 + 3) / 4), 1);
    return std::make_unique<ParseNode>(state, parsers);
}

}  // namespace invidx
