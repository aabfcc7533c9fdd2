#include "invidx/pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "devices/gpu_devices.hpp"
#include "graph/build_state.hpp"
#include "graph/builder.hpp"
#include "graph/resource_usage.hpp"
#include "graph/seconds_since.hpp"
#include "graph/thread_names.hpp"
#include "graph/token_pool.hpp"
#include "nodes/flush/flush_node.hpp"
#include "nodes/index/index_node.hpp"
#include "nodes/sample/sample_step.hpp"
#include "pipelines/cluster/file_ranges.hpp"
#if defined(INVIDX_HAVE_MPI)
#include "pipelines/cluster/mpi/cluster_build.hpp"
#endif
#include "pipelines/build_hooks.hpp"
#include "pipelines/duplicate_name_check.hpp"
#include "pipelines/progress.hpp"
#include "pipelines/resolve_plan.hpp"
#include "store/durable_sync.hpp"
#include "store/index_reader.hpp"
#include "store/index_writer.hpp"
#include "store/tf_impacts.hpp"
#include "invidx/available_cores.hpp"

namespace invidx {
namespace {

// The sum of `figure` ("busy_seconds", "busy_cpu_seconds") over the nodes of `kind`.
double busy_seconds_of_kind(const nlohmann::json& nodes, const std::string& kind,
                            const char* figure = "busy_seconds") {
    double total = 0;
    for (const auto& node : nodes)
        if (node.value("kind", "") == kind) total += node.value(figure, 0.0);
    return total;
}

}  // namespace

Pipeline::Pipeline(PipelineConfig config) : config_(std::move(config)) {}

nlohmann::json Pipeline::plan(const NodeRegistry& registry) const {
    // The build's own resolve step, so the plan is the build's (a cluster
    // build reads no vectors: its ranks resolve their own plans).
    const bool detect = !config_.cluster;
    const std::vector<InputFile> files = detect ? expand_pipeline_inputs(config_) : std::vector<InputFile>{};
    return resolve_build(config_, files, detect, registry, this_machine()).plan.to_json();
}

BuildReport Pipeline::run(const RunOptions& options, const NodeRegistry& registry) {
    return run_pipeline(config_, options, BuildHooks{}, registry);
}

BuildReport run_pipeline(const PipelineConfig& given, const RunOptions& options, const BuildHooks& hooks,
                         const NodeRegistry& registry) {
    const auto start = std::chrono::steady_clock::now();
    const double sync_wait_at_start = sync_wait_seconds();
    const double cpu_at_start = process_cpu_seconds();
    const PageLockedTotals page_locked_at_start = page_locked_totals();
    // Every thread's CPU by name at the end (the report's
    // cpu_seconds_by_thread): the flow graph's workers named as they come.
    const TbbWorkerNames tbb_worker_names;
    const std::map<pid_t, ThreadCpu> threads_at_start = thread_cpu_by_id();
    const auto stop_if_requested = [&] {
        if (options.stop.stop_requested()) throw Interrupted();
    };
    stop_if_requested();
    if (given.cluster) {
#if defined(INVIDX_HAVE_MPI)
        return run_cluster_build(given, options, hooks, registry);
#else
        throw ConfigError("/cluster", "this invidx was built without MPI, so it cannot make a cluster build: install "
                                      "OpenMPI (Debian: libopenmpi-dev openmpi-bin) and rebuild, or remove \"cluster\" "
                                      "to build on one machine");
#endif
    }
    // 0: every "auto" settled once, for this machine, before any node is
    // made (on a GPU machine this is where the CUDA runtime starts, 0.1-0.2
    // s): "auto" inputs whose first JSONL file starts with a term vector
    // make the build pre-weighted (docs/PIPELINE.md), and its plan is made
    // for that (resolve_build, as `invidx-run --plan` shows it). The sample
    // (step 2) needs only the files and the configuration, so it is taken on
    // a thread of its own meanwhile, off the build's critical path, unless
    // the caller binds the collections itself; the plan settles whether it
    // is used.
    const auto plan_start = std::chrono::steady_clock::now();
    std::vector<InputFile> files = hooks.files ? *hooks.files : expand_pipeline_inputs(given);
    const PipelineConfig detected = configuration_to_run(given, files, !hooks.files);
    std::future<TimedSample> sample;
    if (!hooks.assignment) {
        sample = std::async(std::launch::async, [files, &detected] {
            name_this_thread("invidx-sample");
            return take_sample(files, detected);
        });
    }
    const ResolvedBuild resolved{.config = detected,
                                 .plan = resolve_build_plan(detected, registry, this_machine())};
    const PipelineConfig& config = resolved.config;
    const BuildPlan& plan = resolved.plan;
    // A plan without indexers binds no collections: the sample is let finish
    // (its errors dropped) before the graph would run beside it.
    if (!plan.indexing) sample = {};
    const double plan_seconds = seconds_since(plan_start);
    // The GPUs' contexts are made on threads of their own while the output
    // and the graph are set up and the graph starts reading and inflating;
    // their nodes' first CUDA calls wait for them if they come first.
    std::optional<GpuWarmUp> warm_up(std::in_place, plan.gpu_ordinals());
    const auto setup_start = std::chrono::steady_clock::now();

    oneapi::tbb::flow::graph flow_graph;
    TokenPool tokens(plan.tokens);
    BuildState state(config, plan, flow_graph, tokens);
    state.files = files;
    for (const auto& file : files) state.input_bytes_compressed += file.size_bytes;

    // Created first, so an unwritable or locked output fails before any work
    // is done; destroyed without publish() on any error, leaving nothing behind.
    PublishOptions publishing{.notice = options.notice,
                              .at_step = hooks.at_publish_step,
                              .exchange = hooks.publish_by_exchange,
                              .durable = hooks.durable_output,
                              .keep_dictionary = hooks.keep_dictionary};
    IndexWriter writer(config.output, config.analysis, std::move(files), std::move(publishing));
    state.writer = &writer;
    // The frame node's docid step appends each document's text in docid order.
    if (config.store.documents) writer.enable_document_store(config.store.level);

    // The steps of a build, in order. 1: the graph, every node made and
    // linked, so that any configuration error comes before any work.
    FlowGraph graph(config.nodes, registry, state);
    const std::vector<IndexStage*> index_stages = graph.nodes_of_type<IndexStage>();
    const std::vector<FlushStage*> flush_stages = graph.nodes_of_type<FlushStage>();
    if (index_stages.size() > 1 || flush_stages.size() > 1)
        throw ConfigError("/nodes", "a pipeline has at most one \"index\" node and one \"flush\" node");
    // The index is written through the flush node (its runs, documents and
    // dictionary): a graph that ends elsewhere could run but never publish.
    if (flush_stages.empty())
        throw ConfigError("/nodes", "a pipeline writes its index through a \"flush\" node and this one has none: "
                                    "end it with \"index\", \"compress\" and \"flush\" (configs/default.json)");
    IndexStage* const index = index_stages.empty() ? nullptr : index_stages.front();
    FlushStage* const flush = flush_stages.front();

    // Setting up: the output, every node made (GPU buffers allocated).
    const double setup_seconds = seconds_since(setup_start);
    GraphRunResult result;
    stop_if_requested();
    // Until the index is published: 100% once the graph has drained, then
    // the phases after it (pipelines/progress.hpp).
    ProgressReporter progress(state, config.progress, options.progress, options.progress_interval);
    {
        // Runs on the thread that asks for the stop; run_graph rethrows the
        // Interrupted once the cancelled graph has drained. Unregistered
        // (waiting for a callback under way) before state goes.
        const std::stop_callback cancel_on_stop(options.stop, [&state] {
            state.fail(std::make_exception_ptr(Interrupted()));
        });
        stop_if_requested();
        // 2: sampling binds each trie collection to one indexer for the
        // whole build. The sample's errors come here, after every
        // configuration error.
        if (index) {
            if (hooks.assignment) {
                state.assignment = hooks.assignment;
            } else {
                ensure(sample.valid(), "an index node without the plan's indexers (its kind has no resolver)");
                const auto wait_start = std::chrono::steady_clock::now();
                const TimedSample taken = sample.get();
                state.assignment = assign_from_sample(state, taken, seconds_since(wait_start));
            }
            index->take_assignment(*state.assignment);
        }
        // 3: the graph runs until the input is indexed and every run is
        // flushed; each node's finish() follows (the index node combines
        // its indexers' dictionaries).
        result = graph.run();
    }
    // Long since done: the threads joined.
    const auto warm_up_wait_start = std::chrono::steady_clock::now();
    warm_up.reset();
    state.add_stage_seconds("gpu_warm_up_wait", seconds_since(warm_up_wait_start));
    stop_if_requested();
    const auto ending_start = std::chrono::steady_clock::now();
    progress.enter_phase(ProgressReporter::kWriting);
    // 4 and 5 at once. 5: names that several documents have, read from the
    // completed documents.bin on a thread of their own; 4 meanwhile: the
    // dictionary, from the index node to the flush node, written once,
    // after the last run. Then the names are reported, or (on_duplicate_id
    // "error") the build fails here, before anything is published.
    std::future<DuplicateNames> names_found;
    if (hooks.check_duplicate_names) {
        const std::filesystem::path documents = writer.complete_documents();
        names_found = std::async(std::launch::async, [documents, &state] {
            return find_duplicate_names(documents, documents.string(), state.files);
        });
    }
    flush->write_dictionary(index ? index->take_dictionary() : std::vector<DictionaryTerm>{});
    const nlohmann::json duplicate_names = names_found.valid()
                                               ? report_duplicate_names(names_found.get(), config.on_duplicate_id,
                                                                        options.notice)
                                               : nlohmann::json();

    // 6: pre-weighted documents: the query layout with the tfs (the weights)
    // as impacts, what `invidx weight IDX --impacts tf` writes, so `search
    // --scoring impact` ranks by the weights at once. Written into the index
    // before it is published: it appears with its impacts or not at all.
    // Not in a cluster build's part (not durable): the joined index is rewritten.
    nlohmann::json tf_impacts;
    double tf_impacts_seconds = 0.0;
    const bool writes_tf_impacts = config.analysis.pre_weighted && hooks.durable_output;
    if (writes_tf_impacts) {
        stop_if_requested();
        const auto impacts_start = std::chrono::steady_clock::now();
        const IndexReader staged(writer.complete());
        std::string why;
        TfImpactLayoutOptions impact_options;
        impact_options.stop = options.stop;
        const std::optional<unsigned> bits = write_tf_impact_file(writer, staged, impact_options, &why);
        if (bits) {
            tf_impacts = {{"impacts", "tf"}, {"bits", *bits}, {"codec", "bp128"}};
        } else {
            tf_impacts = {{"impacts", "none"}, {"reason", why}};
            if (options.notice) options.notice("no impacts for --scoring impact: " + why);
        }
        tf_impacts_seconds = seconds_since(impacts_start);
    }

    const uint64_t text_bytes = state.text_bytes.load();
    nlohmann::json report;
    report["format"] = "invidx build report";
    report["description"] = config.description;
    report["output"] = config.output.string();
    report["input_files"] = state.files.size();
    report["input_bytes_compressed"] = state.input_bytes_compressed;
    report["input_bytes_uncompressed"] = text_bytes;
    report["documents"] = state.documents.load();
    report["tokens"] = state.tokens_indexed.load();
    report["terms"] = state.terms;
    report["postings"] = state.postings;
    if (!duplicate_names.is_null()) report["duplicate_names"] = duplicate_names;
    if (!tf_impacts.is_null()) report["query_layout"] = tf_impacts;
    report["memory_tokens"] = plan.tokens;
    report["plan"] = plan.to_json();
    report["peak_tokens_in_flight"] = tokens.peak_in_flight();
    report["hardware_threads"] = available_cores();  // the cores it may use (affinity)
    report["nodes"] = result.nodes;
    const nlohmann::json sections = state.report_sections();
    for (const auto& [key, value] : sections.items()) report[key] = value;

    nlohmann::json stages = state.stage_seconds();
    stages["plan"] = plan_seconds;
    stages["setup"] = setup_seconds;
    // The nodes' finish() after the graph drained (the dictionary combined,
    // GPU buffers let go), then what comes before report.json: the
    // dictionary written, duplicate names, impacts.
    stages["finish"] = result.finish_seconds;
    stages["ending"] = seconds_since(ending_start);
    if (writes_tf_impacts) stages["tf_impacts"] = tf_impacts_seconds;
    stages["pipeline"] = result.graph_seconds;
    stages["parse_busy"] = busy_seconds_of_kind(result.nodes, "parse");
    stages["index_busy"] = busy_seconds_of_kind(result.nodes, "index");
    stages["post_processing_busy"] =
        busy_seconds_of_kind(result.nodes, "compress") + busy_seconds_of_kind(result.nodes, "flush");
    // The CPU time inside the same bodies (waiting for a core or a device left out).
    stages["parse_busy_cpu"] = busy_seconds_of_kind(result.nodes, "parse", "busy_cpu_seconds");
    stages["index_busy_cpu"] = busy_seconds_of_kind(result.nodes, "index", "busy_cpu_seconds");
    stages["post_processing_busy_cpu"] = busy_seconds_of_kind(result.nodes, "compress", "busy_cpu_seconds") +
                                         busy_seconds_of_kind(result.nodes, "flush", "busy_cpu_seconds");
    report["stages"] = stages;

    report["total_seconds"] = seconds_since(start);
    report["throughput_mb_s"] = text_bytes / 1e6 / std::max(1e-9, report["total_seconds"].get<double>());
    report["peak_rss_bytes"] = peak_rss_bytes();
    // Every thread's CPU time (user + system) during the build: unlike the
    // nodes' busy seconds it leaves out waiting and counts spinning.
    report["cpu_seconds"] = process_cpu_seconds() - cpu_at_start;
    // The same CPU time by thread name (graph/thread_names.hpp): invidx-tbb
    // (the flow graph's workers: node bodies and what lies between them),
    // invidx-gpuparse, invidx-gpuindex, invidx-inflate (threads that wait on
    // a GPU), the driver's own threads, the main thread under the process's
    // name; "ended" is what threads gone before now used (the sample's, the
    // GPU contexts', those of archives).
    nlohmann::json by_thread = nlohmann::json::object();
    double named_seconds = 0;
    for (const auto& [name, seconds] : thread_cpu_seconds_since(threads_at_start)) {
        by_thread[name] = seconds;
        named_seconds += seconds;
    }
    by_thread["ended"] = std::max(0.0, report["cpu_seconds"].get<double>() - named_seconds);
    report["cpu_seconds_by_thread"] = by_thread;
    // Waiting for the disk (fsync) until now, summed over threads; the
    // publish after report.json syncs the rest of the index at once. In a
    // cluster rank running several pipelines, the rank's whole wait.
    report["sync_wait_seconds"] = sync_wait_seconds() - sync_wait_at_start;
    // Host memory page-locked for the GPUs during the build (the process's,
    // so a build beside this one adds its own): registered is how many
    // allocations were made without holding up the other threads.
    const PageLockedTotals page_locked = page_locked_totals();
    report["page_locked_host"] = {{"allocations", page_locked.allocations - page_locked_at_start.allocations},
                                  {"registered", page_locked.registered - page_locked_at_start.registered},
                                  {"bytes", page_locked.bytes - page_locked_at_start.bytes},
                                  {"seconds", page_locked.seconds - page_locked_at_start.seconds}};
    uint64_t dictionary_bytes = 0;
    for (const auto& indexer : report.value("indexers", nlohmann::json::array()))
        dictionary_bytes += indexer.value("memory_bytes", uint64_t{0});
    report["dictionary_memory_bytes"] = dictionary_bytes;
    writer.write_report(report);
    stop_if_requested();
    progress.enter_phase(ProgressReporter::kPublishing);
    writer.publish();
    progress.stop();
    report["total_seconds"] = seconds_since(start);
    return BuildReport(std::move(report), writer.take_dictionary());
}

std::string BuildReport::summary_table() const {
    std::ostringstream out;
    char line[256];
    const auto stage = [&](const char* key) { return json["stages"].value(key, 0.0); };
    std::snprintf(line, sizeof line, "%-28s %12s %12s\n", "stage (Wei & JaJa Table VI)", "seconds", "cpu s");
    out << line;
    struct Row {
        const char* label;
        const char* key;
        const char* cpu_key;  // the CPU seconds of the busy rows, nullptr elsewhere
    };
    const Row rows[] = {
        {"sampling", "sampling", nullptr},
        {"parse + index (pipelined)", "pipeline", nullptr},
        {"  parsers busy (sum)", "parse_busy", "parse_busy_cpu"},
        {"  indexers busy (sum)", "index_busy", "index_busy_cpu"},
        {"  compress + flush busy", "post_processing_busy", "post_processing_busy_cpu"},
        {"dictionary combine", "dictionary_combine", nullptr},
        {"dictionary write", "dictionary_write", nullptr},
    };
    for (const Row& row : rows) {
        if (row.cpu_key)
            std::snprintf(line, sizeof line, "%-28s %12.3f %12.3f\n", row.label, stage(row.key), stage(row.cpu_key));
        else
            std::snprintf(line, sizeof line, "%-28s %12.3f\n", row.label, stage(row.key));
        out << line;
    }
    std::snprintf(line, sizeof line, "%-28s %12.3f\n", "total", json.value("total_seconds", 0.0));
    out << line;
    std::snprintf(line, sizeof line,
                  "\n%llu documents, %llu tokens, %llu terms, %llu postings; %.1f MB uncompressed at %.1f MB/s; peak RSS %.1f MiB\n\n",
                  static_cast<unsigned long long>(json.value("documents", uint64_t{0})),
                  static_cast<unsigned long long>(json.value("tokens", uint64_t{0})),
                  static_cast<unsigned long long>(json.value("terms", uint64_t{0})),
                  static_cast<unsigned long long>(json.value("postings", uint64_t{0})),
                  json.value("input_bytes_uncompressed", uint64_t{0}) / 1e6, json.value("throughput_mb_s", 0.0),
                  json.value("peak_rss_bytes", uint64_t{0}) / 1048576.0);
    out << line;
    // Who parsed what: the CPU parsers together, each GPU's slots together.
    if (json.contains("parse")) {
        for (const auto& parser : json["parse"].value("parsers", nlohmann::json::array())) {
            const std::string who = parser.value("kind", "") == "gpu" ? "GPU " + parser.value("device", "") : "CPU";
            std::snprintf(line, sizeof line, "parsers %-10s %9llu batches %10.1f MB %9.3f s busy\n", who.c_str(),
                          static_cast<unsigned long long>(parser.value("batches", uint64_t{0})),
                          parser.value("text_bytes", uint64_t{0}) / 1e6, parser.value("busy_seconds", 0.0));
            out << line;
        }
        out << "\n";
    }
    std::snprintf(line, sizeof line, "%-12s %4s %9s %9s %10s %9s %9s %9s %9s %7s\n", "node", "conc", "items in",
                  "items out", "MB in", "busy s", "cpu s", "idle s", "blocked s", "util");
    out << line;
    for (const auto& node : json["nodes"]) {
        std::snprintf(line, sizeof line, "%-12s %4u %9llu %9llu %10.1f %9.3f %9.3f %9.3f %9.3f %6.0f%%\n",
                      node.value("name", "").c_str(), node.value("concurrency", 1u),
                      static_cast<unsigned long long>(node.value("items_in", uint64_t{0})),
                      static_cast<unsigned long long>(node.value("items_out", uint64_t{0})),
                      node.value("bytes_in", uint64_t{0}) / 1e6, node.value("busy_seconds", 0.0),
                      node.value("busy_cpu_seconds", 0.0), node.value("wait_input_seconds", 0.0),
                      node.value("wait_output_seconds", 0.0),
                      100 * node.value("utilization", 0.0));
        out << line;
    }
    return out.str();
}

}  // namespace invidx
