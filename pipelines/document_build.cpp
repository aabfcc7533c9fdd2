// build_from_documents (invidx/document_source.hpp): a standard build whose
// "read" node reads a DocumentSource. Nothing else of the engine changes:
// the documents are one input file of format jsonl, or jsonvector when the
// analysis is pre-weighted (BuildHooks::files), the
// node kinds are the standard ones with "read" swapped, and the sampler's
// collection assignment is made here from the documents' first bytes, as
// the sampler makes it from a file's.
#include <chrono>

#include "analysis/analyzer.hpp"
#include "graph/build_plan.hpp"
#include "graph/seconds_since.hpp"
#include "invidx/document_source.hpp"
#include "invidx/entry_name.hpp"
#include "invidx/error.hpp"
#include "invidx/input_format.hpp"
#include "nodes/frame/framer.hpp"
#include "nodes/sample/assignment.hpp"
#include "nodes/sample/sampler.hpp"
#include "nodes/source/document_read_node.hpp"
#include "pipelines/build_hooks.hpp"
#include "pipelines/resolve_plan.hpp"

namespace invidx {
namespace {

// The standard kinds, with the documents' read node as "read".
void add_document_kinds(NodeRegistry& registry, DocumentSource& documents) {
    for (const NodeKind& kind : node_registry().kinds()) {
        if (kind.name == "read") continue;
        registry.add(kind.name, kind.description, kind.factory, kind.resolve);
    }
    registry.add("read", "source: the documents a program hands to the build (invidx/document_source.hpp)",
                 [&documents](NodeOptions& options, RunState& state) {
                     return make_document_read_node(options, state, documents);
                 });
}

// What sample_collections counts for a file, over the documents' first
// bytes: complete records only, the last one too when the documents end
// within the budget.
CollectionSample sample_prefix(const InputFile& file, const std::string& prefix, bool whole,
                               const AnalysisSettings& analysis) {
    CollectionSample sample;
    sample.tokens.assign(kCollections, 0);
    sample.files = 1;
    sample.bytes = prefix.size();
    Analyzer analyzer(analysis);
    DocumentTerms terms;
    const auto count_record = [&](const FramedRecord& record) {
        analyzer.analyze(record.text, record.html, terms);
        for (const auto& term : terms.terms) sample.tokens[term.collection] += term.tf;
        ++sample.documents;
    };
    auto framer = make_framer(file.format, document_name_of_entry(file, file.name), analysis);
    framer->feed(prefix, count_record);
    if (whole) framer->finish(count_record);
    return sample;
}

CollectionAssignment assign_from_prefix(const PipelineConfig& config, const BuildPlan& plan, const InputFile& file,
                                        DocumentSource& documents, nlohmann::json& report_section) {
    const SamplerConfig& sampler = config.sampler;
    CollectionSample sample;
    sample.tokens.assign(kCollections, 0);
    if (sampler.enabled && sampler.bytes_per_file > 0 && sampler.max_bytes > 0) {
        const size_t budget = static_cast<size_t>(std::min(sampler.bytes_per_file, sampler.max_bytes));
        // One byte more than the budget tells whether the documents ended within it.
        const std::string prefix = documents.prefix(budget + 1);
        const bool whole = prefix.size() <= budget;
        try {
            sample = sample_prefix(file, whole ? prefix : prefix.substr(0, budget), whole, config.analysis);
        } catch (const Error& error) {
            throw error.with_defaults(ErrorContext{.node = "sampler", .file = {}, .record = {}, .byte_offset = {}});
        }
    }
    std::vector<bool> on_gpu;
    for (const auto& device : plan.indexing->devices()) on_gpu.push_back(device.is_gpu());
    CollectionAssignment assignment =
        assign_collections(sample.tokens, on_gpu, plan.popular_token_fraction, sampler.max_popular);
    report_section = {{"enabled", sampler.enabled}, {"files", sample.files},         {"bytes", sample.bytes},
                      {"documents", sample.documents}, {"from", "the documents' first bytes"}};
    return assignment;
}

}  // namespace

BuildReport build_from_documents(const PipelineConfig& config, DocumentSource& documents, const RunOptions& options) {
    struct CloseAtEnd {
        DocumentSource& documents;
        ~CloseAtEnd() { documents.close(); }
    } close_at_end{documents};
    if (config.cluster)
        throw ConfigError("/cluster", "a build from documents runs on one machine: remove \"cluster\"");
    NodeRegistry registry;
    add_document_kinds(registry, documents);
    // Pre-weighted documents are read as the jsonvector format reads them.
    const InputFile file{.ordinal = 0,
                         .path = documents.name(),
                         .name = documents.name(),
                         .format = std::string(input_format_name(
                             config.analysis.pre_weighted ? InputFormat::jsonvector : InputFormat::jsonl)),
                         .size_bytes = 0};
    BuildHooks hooks;
    hooks.files = std::vector<InputFile>{file};
    nlohmann::json sampler_section;
    const auto sampling_start = std::chrono::steady_clock::now();
    {
        // The plan is resolved again by the build, the same way: it depends
        // only on the configuration and the machine.
        const BuildPlan plan = resolve_build_plan(config, registry, this_machine());
        if (plan.indexing) hooks.assignment = assign_from_prefix(config, plan, file, documents, sampler_section);
    }
    const double sampling_seconds = seconds_since(sampling_start);
    BuildReport report = run_pipeline(config, options, hooks, registry);
    if (!sampler_section.is_null()) report.json["sampler"] = sampler_section;
    if (report.json.contains("stages")) report.json["stages"]["sampling"] = sampling_seconds;
    return report;
}

}  // namespace invidx
