#include "nodes/parse/parse_node.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/flow_graph.h>

#include "analysis/analyzer.hpp"
#include "devices/gpu_devices.hpp"
#include "graph/async_worker.hpp"
#include "graph/build_state.hpp"
#include "graph/guard.hpp"
#include "graph/latency_stat.hpp"
#include "graph/resource_usage.hpp"
#include "nodes/parse/gpu_parse_batch.hpp"
#include "nodes/parse/gpu_parsers.hpp"
#include "invidx/available_cores.hpp"

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

namespace flow = oneapi::tbb::flow;
using In = std::shared_ptr<const DocBatch>;
using Out = std::shared_ptr<const ParsedBatch>;

// Per-thread analysis state: libstemmer handles are not thread-safe.
struct ParserState {
    explicit ParserState(const AnalysisSettings& settings) : analyzer(settings) {}
    Analyzer analyzer;
    DocumentTerms terms;
    ParsedSizeHint sizes;
};

// What one kind of parser did, for the report: the CPU parsers together, or
// one GPU's slots together.
struct ParserCounters {
    std::atomic<uint64_t> batches{0};
    std::atomic<uint64_t> batches_on_host{0};  // a GPU's batches over its max_batch_bytes
    std::atomic<uint64_t> text_bytes{0};
    std::atomic<uint64_t> busy_ns{0};
    std::atomic<uint64_t> host_cpu_ns{0};  // a GPU's slot threads: their CPU time (busy_ns includes waiting)
    std::atomic<uint64_t> host_wait_cpu_ns{0};  // of host_cpu_ns, polling for the GPU's work to end
};

double seconds(const std::atomic<uint64_t>& ns) { return static_cast<double>(ns.load()) * 1e-9; }

// The parsers. CPU parsers only: one function_node of `count` parsers, as
// ever. With GPU parsers, every batch waits in one queue_node and the
// first parser free takes it: the CPU parsers (a rejecting function_node,
// which pulls from the buffer when one of them is free) or a GPU slot (a
// limiter_node of 1 before an async_node whose body queues the batch on the
// slot's own thread, so no flow-graph thread waits for a device; the
// limiter is released when the slot is done and pulls the next batch).
// So the split between CPU and GPU follows their speeds on this input.
// A queue_node, not a buffer_node: a limiter pulls by reserving the front
// item, and oneTBB 2021's buffer_node lets a plain pull (the CPU parsers')
// pop that reserved item too, so one batch went to two parsers and its
// slot was freed twice; queue_node refuses pulls while an item is reserved.
// The queue adds no bound of its own: each batch holds its read block's token.
// Batches leave in any order; the index node restores docid order by batch
// sequence (graph/in_order.hpp), as it does behind parallel CPU parsers.
class ParseNode final : public Stage<DocBatch, ParsedBatch> {
public:
    using CpuRejecting = flow::function_node<In, Out, flow::rejecting>;
    using CpuQueueing = flow::function_node<In, Out>;
    using GpuBody = flow::async_node<In, Out>;

    ParseNode(RunState& state, const ParsePlan& plan, std::shared_ptr<const GpuParseBackend> backend)
        : state_(build_state(state)),
          cpu_parsers_(plan.cpu_parsers),
          choice_(plan),
          backend_(std::move(backend)),
          parsers_state_(state.config.analysis) {
        unsigned concurrency = cpu_parsers_;
        if (choice_.gpus.empty()) {
            cpu_queueing_ = std::make_unique<CpuQueueing>(state.graph, cpu_parsers_,
                                                          [this](const In& batch) { return parse_on_cpu(batch); });
            input_ = cpu_queueing_.get();
            output_ = cpu_queueing_.get();
        } else {
            buffer_ = std::make_unique<flow::queue_node<In>>(state.graph);
            merged_ = std::make_unique<flow::broadcast_node<Out>>(state.graph);
            input_ = buffer_.get();
            output_ = merged_.get();
            if (cpu_parsers_ > 0) {
                cpu_rejecting_ = std::make_unique<CpuRejecting>(state.graph, cpu_parsers_,
                                                                [this](const In& batch) { return parse_on_cpu(batch); });
                flow::make_edge(*buffer_, *cpu_rejecting_);
                flow::make_edge(*cpu_rejecting_, *merged_);
            }
            for (size_t g = 0; g < choice_.gpus.size(); ++g) {
                gpu_counters_.push_back(std::make_unique<ParserCounters>());
                for (unsigned k = 0; k < choice_.gpus[g].slots; ++k) add_gpu_slot(g);
                concurrency += choice_.gpus[g].slots;
            }
        }
        metrics_.concurrency = concurrency;
    }

    ~ParseNode() override {
        // The slots' threads stop first, while the nodes their jobs report to exist.
        for (auto& slot : slots_) slot->worker.reset();
    }

    flow::receiver<In>& input_port() override { return *input_; }
    flow::sender<Out>& output_port() override { return *output_; }

    // Each slot makes its analyzer on its own thread (a CUDA context and
    // stream) while the first blocks are read. The graph waits for it
    // (reserve_wait), so finish() never reads a slot being set up.
    void start() override {
        for (auto& slot : slots_) {
            GpuSlot* const s = slot.get();
            state_.graph.reserve_wait();
            s->worker->submit([this, s] {
                try {
                    run_guarded(metrics_, [&] { analyzer_of(*s); });
                } catch (...) {
                    state_.fail(std::current_exception());
                }
                state_.graph.release_wait();
            });
        }
    }

    void finish(RunState& state) override {
        nlohmann::json parsers = nlohmann::json::array();
        if (cpu_parsers_ > 0) {
            parsers.push_back({{"kind", "cpu"},
                               {"count", cpu_parsers_},
                               {"batches", cpu_counters_.batches.load()},
                               {"text_bytes", cpu_counters_.text_bytes.load()},
                               {"busy_seconds", seconds(cpu_counters_.busy_ns)}});
        }
        for (size_t g = 0; g < choice_.gpus.size(); ++g) {
            const ParserCounters& counters = *gpu_counters_[g];
            uint64_t device_bytes = 0, peak_device_bytes = 0, pinned_host_bytes = 0;
            GpuAnalyzerTimes times;
            for (const auto& slot : slots_) {
                if (slot->gpu != g || !slot->analyzer) continue;
                const GpuAnalyzerMemory memory = slot->analyzer->memory();
                device_bytes += memory.device_bytes;
                peak_device_bytes += memory.peak_device_bytes;
                pinned_host_bytes += memory.pinned_host_bytes;
                times.add(slot->analyzer->times());
            }
            parsers.push_back({{"kind", "gpu"},
                               {"device", choice_.gpus[g].device.name()},
                               {"slots", choice_.gpus[g].slots},
                               {"max_batch_bytes", choice_.gpus[g].max_batch_bytes},
                               {"batches", counters.batches.load()},
                               {"batches_on_host", counters.batches_on_host.load()},
                               {"text_bytes", counters.text_bytes.load()},
                               {"busy_seconds", seconds(counters.busy_ns)},
                               {"host_cpu_seconds", seconds(counters.host_cpu_ns)},
                               {"host_wait_cpu_seconds", seconds(counters.host_wait_cpu_ns)},
                               {"device_bytes", device_bytes},
                               {"peak_device_bytes", peak_device_bytes},
                               {"pinned_host_bytes", pinned_host_bytes},
                               // Terms left on the device for the GPU indexer there.
                               {"resident_terms", choice_.gpus[g].resident_terms},
                               {"batches_terms_on_device", times.resident_batches},
                               {"terms_on_device", times.resident_terms},
                               {"terms_to_host", times.downloaded_terms},
                               {"batches_no_device_buffer", times.resident_unavailable},
                               // Text copied on the device from GPU-inflated blocks, not uploaded.
                               {"text_bytes_from_device", times.device_text_bytes},
                               // Summed over the slots; the rest of busy_seconds is
                               // gathering the batch and making the ParsedBatch.
                               {"analyzer_seconds",
                                {{"device_copy_in", times.upload_seconds},
                                 {"device_pass1", times.pass1_seconds},
                                 {"device_pass1_markup", times.pass1_markup_seconds},
                                 {"device_pass1_markup_candidates", times.pass1_candidates_seconds},
                                 {"device_pass1_markup_walk", times.pass1_walk_seconds},
                                 {"device_pass1_token_starts", times.pass1_tokens_seconds},
                                 {"device_pass1_terms", times.pass1_terms_seconds},
                                 {"device_pass2", times.pass2_seconds},
                                 {"device_copy_out", times.download_seconds},
                                 {"device_idle_readbacks", times.readback_idle_seconds},
                                 {"host_pack", times.pack_seconds},
                                 {"host_upload", times.host_upload_seconds},
                                 {"analyze_call", times.analyze_seconds}}}});
        }
        nlohmann::json section = {{"gpus", choice_.gpus_setting},
                                  {"choice", choice_.gpus.empty() ? "cpu" : (cpu_parsers_ > 0 ? "cpu+gpu" : "gpu")},
                                  {"reason", choice_.gpus_reason},
                                  {"parsers", std::move(parsers)},
                                  {"batch_wait_seconds", batch_wait_.to_json()}};
        if (!choice_.gpus.empty()) section["gpu_backend"] = backend_->name;
        state.add_report_section("parse", std::move(section));
    }

private:
    struct GpuSlot {
        size_t gpu = 0;  // into choice_.gpus
        std::unique_ptr<flow::limiter_node<In>> limiter;
        std::unique_ptr<GpuBody> node;
        std::unique_ptr<GpuBatchAnalyzer> analyzer;  // made and used on `worker` only
        std::unique_ptr<ParserState> host;           // for batches over max_batch_bytes; on `worker` only
        std::unique_ptr<AsyncWorker> worker;
    };

    void add_gpu_slot(size_t g) {
        auto slot = std::make_unique<GpuSlot>();
        slot->gpu = g;
        slot->worker = std::make_unique<AsyncWorker>("invidx-gpuparse");
        slot->limiter = std::make_unique<flow::limiter_node<In>>(state_.graph, 1);
        GpuSlot* const s = slot.get();
        slot->node = std::make_unique<GpuBody>(state_.graph, flow::unlimited,
                                               [this, s](const In& batch, GpuBody::gateway_type& gateway) {
                                                   gateway.reserve_wait();
                                                   s->worker->submit([this, s, batch, &gateway]() mutable {
                                                       parse_on_gpu(*s, std::move(batch), gateway);
                                                   });
                                               });
        flow::make_edge(*buffer_, *slot->limiter);
        flow::make_edge(*slot->limiter, *slot->node);
        flow::make_edge(*slot->node, *merged_);
        slots_.push_back(std::move(slot));
    }

    GpuBatchAnalyzer& analyzer_of(GpuSlot& slot) {
        if (!slot.analyzer) slot.analyzer = backend_->make_analyzer(choice_.gpus[slot.gpu].device.ordinal);
        return *slot.analyzer;
    }

    Out parse_on_cpu(const In& batch) {
        return run_guarded(metrics_, [&] {
            auto busy = metrics_.busy_scope();
            NodeMetrics::BusyScope busy_cpu(cpu_counters_.busy_ns);
            ++metrics_.items_in;
            metrics_.bytes_in += batch->text_bytes;
            batch_wait_.add(batch->numbered_at, std::chrono::steady_clock::now());
            ParserState& local = parsers_state_.local();
            auto out = std::make_shared<ParsedBatch>(parse_batch(*batch, local.analyzer, local.terms, local.sizes));
            counted(*out, cpu_counters_);
            return Out(std::move(out));
        });
    }

    // On the slot's thread. Whatever happens, the slot takes the next batch
    // (its limiter is released) and the graph may finish (release_wait).
    // The batch is let go first: once the graph may finish, its run state
    // (the token limiter its lease returns to, the buffer pools) may go, so
    // nothing of the run may be released on this thread after that.
    void parse_on_gpu(GpuSlot& slot, In batch, GpuBody::gateway_type& gateway) {
        const uint64_t cpu_at_start = thread_cpu_ns();
        const uint64_t wait_cpu_at_start = gpu_wait_cpu_ns();
        try {
            if (!state_.graph.is_cancelled()) {
                Out out = run_guarded(metrics_, [&] {
                    ParserCounters& counters = *gpu_counters_[slot.gpu];
                    auto busy = metrics_.busy_scope();  // a slot waiting on its GPU uses little CPU
                    NodeMetrics::BusyScope busy_gpu(counters.busy_ns);
                    ++metrics_.items_in;
                    metrics_.bytes_in += batch->text_bytes;
                    batch_wait_.add(batch->numbered_at, std::chrono::steady_clock::now());
                    std::shared_ptr<ParsedBatch> parsed;
                    if (batch->text_bytes <= choice_.gpus[slot.gpu].max_batch_bytes) {
                        parsed = std::make_shared<ParsedBatch>(
                            parse_batch_with(analyzer_of(slot), *batch, state_.config.analysis, kept_on_device(slot)));
                    } else {
                        if (!slot.host) slot.host = std::make_unique<ParserState>(state_.config.analysis);
                        parsed = std::make_shared<ParsedBatch>(parse_batch(*batch, slot.host->analyzer, slot.host->terms, slot.host->sizes));
                        ++counters.batches_on_host;
                    }
                    counted(*parsed, counters);
                    return Out(std::move(parsed));
                });
                gateway.try_put(std::move(out));
            }
        } catch (...) {
            state_.fail(std::current_exception());
        }
        batch.reset();
        gpu_counters_[slot.gpu]->host_cpu_ns += thread_cpu_ns() - cpu_at_start;
        gpu_counters_[slot.gpu]->host_wait_cpu_ns += gpu_wait_cpu_ns() - wait_cpu_at_start;
        slot.limiter->decrementer().try_put(flow::continue_msg());
        gateway.release_wait();
    }

    // The collections whose terms the slot's GPU may keep for the GPU
    // indexer there (the route the index node set before the graph ran),
    // or null.
    const uint8_t* kept_on_device(const GpuSlot& slot) const {
        const GpuParserPlan& gpu = choice_.gpus[slot.gpu];
        if (!gpu.resident_terms) return nullptr;
        for (const ResidentRoute& route : state_.resident_routes)
            if (route.device == gpu.device.ordinal && route.owned.size() == kCollections) return route.owned.data();
        return nullptr;
    }

    void counted(const ParsedBatch& out, ParserCounters& counters) {
        state_.tokens_indexed += out.tokens;
        state_.text_bytes_parsed += out.text_bytes;  // work done, for progress (reading runs ahead)
        ++metrics_.items_out;
        metrics_.bytes_out += out.terms.size();
        ++counters.batches;
        counters.text_bytes += out.text_bytes;
    }

    BuildState& state_;
    const unsigned cpu_parsers_;
    const ParsePlan choice_;
    const std::shared_ptr<const GpuParseBackend> backend_;
    oneapi::tbb::enumerable_thread_specific<ParserState> parsers_state_;
    ParserCounters cpu_counters_;
    LatencyStat batch_wait_;  // a numbered batch's wait for a parser or a GPU slot
    std::vector<std::unique_ptr<ParserCounters>> gpu_counters_;  // per GPU of choice_
    flow::receiver<In>* input_ = nullptr;
    flow::sender<Out>* output_ = nullptr;
    std::unique_ptr<CpuQueueing> cpu_queueing_;           // CPU parsers only
    std::unique_ptr<flow::queue_node<In>> buffer_;        // with GPU parsers
    std::unique_ptr<CpuRejecting> cpu_rejecting_;
    std::unique_ptr<flow::broadcast_node<Out>> merged_;
    std::vector<std::unique_ptr<GpuSlot>> slots_;
};

// "count" 0, or "auto" (or absent) beside GPU parsers.
bool no_cpu_parsers(const nlohmann::json& count, const GpuParserChoice& choice) {
    const bool automatic = count.is_null() || (count.is_string() && count.get<std::string>() == "auto");
    const bool none = count.is_number_integer() && count.get<int64_t>() == 0;
    return none || (automatic && !choice.gpus.empty());
}

std::string cpu_parsers_reason(const nlohmann::json& count, unsigned cpu_parsers, const GpuParserChoice& choice) {
    if (count.is_null() && !choice.gpus.empty()) return "no count beside GPU parsers: the GPUs parse alone";
    if (count.is_null()) return "no count: 1";
    if (count.is_string() && !choice.gpus.empty()) return "\"auto\" beside GPU parsers: the GPUs parse alone";
    if (count.is_string()) return "\"auto\": 3 for every 4 cores, rounded up (" + std::to_string(cpu_parsers) + ")";
    return "given";
}

}  // namespace

void resolve_parse_node(NodeOptions& options, const PipelineConfig& config, BuildPlan& plan) {
    if (plan.parsing)
        throw ConfigError(options.spec().pointer, "a pipeline has at most one \"parse\" node");
    const std::shared_ptr<const GpuParseBackend> backend = gpu_parse_backend();
    GpuParserChoice choice = choose_gpu_parsers(options.raw("gpus"), options.pointer("gpus"), *backend);
    // GPU parsers tokenize text; pre-weighted documents have their terms
    // already, so CPU parsers take them (docs/PIPELINE.md, "Pre-weighted
    // documents"): "auto" takes no GPU, a GPU named explicitly is an error.
    if (config.analysis.pre_weighted && !choice.gpus.empty()) {
        if (choice.setting != "auto") {
            throw ConfigError(options.pointer("gpus"),
                              "GPU parsers cannot parse pre-weighted documents (input format jsonvector): CPU "
                              "parsers do; leave \"gpus\" out, or make it \"none\" or \"auto\"");
        }
        choice.gpus.clear();
        choice.reason = "pre-weighted documents (jsonvector) are parsed on the CPU: \"gpus\": \"auto\" takes no GPU";
    }
    // "auto" (or no count): with GPU parsers, none on the CPU: the GPUs
    // parse and the cores are left to reading, decompression, framing and
    // indexing, which measured faster than CPU parsers beside the GPUs (they
    // take batches a GPU would finish sooner, and their cores are missed
    // upstream: docs/PERFORMANCE.md, "GPU parsers").
    // Without GPU parsers, three for every four cores, rounded up (parsing
    // is the costly stage; on 2 cores two parsers measured faster than one).
    // 0 is allowed beside GPU parsers: GPUs only.
    const unsigned cores = plan.machine.cores;
    const unsigned cpu_parsers =
        no_cpu_parsers(options.raw("count"), choice) ? 0 : options.count(std::max(1u, (cores * 3 + 3) / 4), 1);
    if (cpu_parsers == 0 && choice.gpus.empty())
        throw ConfigError(options.pointer("count"),
                          "0 CPU parsers needs GPU parsers, and there are none (" + choice.reason + ")");
    ParsePlan parsing;
    parsing.cpu_parsers = cpu_parsers;
    parsing.cpu_parsers_reason = cpu_parsers_reason(options.raw("count"), cpu_parsers, choice);
    parsing.gpus_setting = choice.setting;
    parsing.gpus_reason = choice.reason;
    for (const GpuParserSpec& gpu : choice.gpus)
        parsing.gpus.push_back({Device::gpu(gpu.ordinal), gpu.slots, gpu.max_batch_bytes, gpu.resident_terms});
    plan.parsing = std::move(parsing);
}

std::unique_ptr<Node> make_parse_node(NodeOptions&, RunState& state) {
    ensure(state.plan.parsing.has_value(), "the parse node was made without its plan");
    return std::make_unique<ParseNode>(state, *state.plan.parsing, gpu_parse_backend());
}

}  // namespace invidx
