#include "nodes/index/index_node.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <thread>

#include <oneapi/tbb/parallel_for.h>

#include "graph/async_worker.hpp"
#include "graph/build_plan.hpp"
#include "graph/build_state.hpp"
#include "graph/guard.hpp"
#include "graph/in_order.hpp"
#include "graph/seconds_since.hpp"
#include "invidx/indexer_registry.hpp"

namespace invidx {
namespace {

namespace flow = oneapi::tbb::flow;
using In = std::shared_ptr<const RegroupedBatch>;
using Out = std::shared_ptr<const RunPostings>;

// One batch as the indexers see it: which run it belongs to, and whether it
// closes that run (then the run's documents come along for the flusher).
struct IndexWork {
    uint64_t sequence = 0;      // the batch's: consecutive, as the cutter saw them
    In batch;
    uint32_t run = 0;
    bool closes_run = false;
    std::shared_ptr<const std::vector<ParsedDoc>> run_documents;
};
using Work = std::shared_ptr<const IndexWork>;
using IndexerBody = flow::multifunction_node<Work, std::tuple<Out>>;
using OffloadedBody = flow::async_node<Work, Out>;
using CutterBody = flow::multifunction_node<In, std::tuple<Work>>;

// Hands freed memory back to the system (glibc keeps it otherwise), so peak
// RSS measures what the build holds, not what malloc kept.
void trim_heap() {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

class IndexNode final : public IndexStage {
public:
    // Indexers exporting their terms at once at the end (finish()).
    static constexpr size_t kExportsAtOnce = 4;

    // `specs`: one per indexer, in indexer order, without their collections.
    IndexNode(RunState& state, std::vector<IndexerSpec> specs, uint64_t run_bytes)
        : state_(build_state(state)),
          specs_(std::move(specs)),
          run_bytes_(run_bytes),
          busy_ns_(specs_.size()),
          orders_(specs_.size()),
          cutter_(state.graph, flow::serial, [this](const In& batch, CutterBody::output_ports_type& ports) {
              run_guarded(metrics_, [&] {
                  cutter_order_.push(batch->sequence, batch,
                                     [&](const In& next) { std::get<0>(ports).try_put(cut(next)); });
              });
          }),
          fanout_(state.graph),
          output_(state.graph) {
        metrics_.concurrency = static_cast<unsigned>(specs_.size());
        flow::make_edge(flow::output_port<0>(cutter_), fanout_);
        for (const auto& spec : specs_) devices_.push_back(spec.device);
    }

    flow::receiver<In>& input_port() override { return cutter_; }
    flow::sender<Out>& output_port() override { return output_; }

    const std::vector<Device>& indexer_devices() const override { return devices_; }

    void start() override {
        ensure(!backends_.empty(), "the index node has no indexers: it was never given its collection assignment");
    }

    void take_assignment(const CollectionAssignment& assignment) override {
        ensure(backends_.empty(), "the index node was given a collection assignment twice");
        ensure(assignment.expected_tokens_per_indexer.size() == specs_.size() && assignment.owner.size() == kCollections,
               "the collection assignment was made for a different number of indexers");
        expected_tokens_ = assignment.expected_tokens_per_indexer;
        for (auto& spec : specs_) {
            spec.owned.assign(kCollections, false);
            for (uint32_t c = 0; c < kCollections; ++c) spec.owned[c] = assignment.owner[c] == spec.indexer_id;
            backends_.push_back(indexer_registry().get(spec.kind, spec.pointer + "/kind")(spec));
        }
        publish_resident_routes();
        workers_.resize(backends_.size());
        for (size_t i = 0; i < backends_.size(); ++i) {
            if (backends_[i]->offloaded()) {
                add_offloaded_indexer(i);
                continue;
            }
            auto body = std::make_unique<IndexerBody>(
                state_.graph, flow::serial, [this, i](const Work& work, IndexerBody::output_ports_type& ports) {
                    run_guarded(metrics_, [&] {
                        orders_[i].push(work->sequence, work, [&](const Work& next) {
                            index(i, *next, [&](Out postings) { std::get<0>(ports).try_put(std::move(postings)); });
                        });
                    });
                });
            flow::make_edge(fanout_, *body);
            flow::make_edge(flow::output_port<0>(*body), output_);
            indexers_.push_back(std::move(body));
        }
    }

    // Dictionary combine (Wei & JaJa Table VI): every indexer's terms together.
    void finish(RunState& state) override {
        ensure(seen_end_of_input_, "the graph stopped before the end of the input reached the indexers");
        const auto start = std::chrono::steady_clock::now();
        nlohmann::json indexers = nlohmann::json::array();
        uint64_t total_terms = 0;
        for (const auto& backend : backends_) total_terms += backend->stats().value("terms", uint64_t{0});
        dictionary_.reserve(total_terms);
        // Indexers export in waves of kExportsAtOnce, in parallel (an export
        // builds a string and a list per term: on 16 GB of pages, 0.24-0.40 s
        // one after another). The exported copy is all that is needed from
        // here on: each indexer is freed as soon as it has exported and the
        // heap trimmed after each wave, so no more than a wave's exports are
        // held beside the indexers' own dictionaries (not two copies of it).
        const size_t count = backends_.size();
        std::vector<nlohmann::json> all_stats(count);
        std::vector<std::vector<DictionaryTerm>> exported(count);
        // Where the combine's time goes, for the report: each indexer's
        // export and its freeing, and the heap's trimming.
        std::vector<double> export_seconds(count, 0.0), free_seconds(count, 0.0);
        double trim_seconds = 0.0;
        for (size_t wave = 0; wave < count; wave += kExportsAtOnce) {
            const size_t end = std::min(count, wave + kExportsAtOnce);
            oneapi::tbb::parallel_for(wave, end, [&](size_t i) {
                const auto export_start = std::chrono::steady_clock::now();
                all_stats[i] = backends_[i]->stats();
                exported[i] = backends_[i]->export_terms();
                const auto free_start = std::chrono::steady_clock::now();
                backends_[i].reset();
                export_seconds[i] = std::chrono::duration<double>(free_start - export_start).count();
                free_seconds[i] = seconds_since(free_start);
            });
            const auto trim_start = std::chrono::steady_clock::now();
            trim_heap();
            trim_seconds += seconds_since(trim_start);
        }
        for (size_t i = 0; i < count; ++i) {
            nlohmann::json stats = std::move(all_stats[i]);
            std::vector<DictionaryTerm> terms = std::move(exported[i]);
            state.postings += stats.value("postings", uint64_t{0});
            stats["indexer"] = i;
            stats["kind"] = specs_[i].kind;
            stats["device"] = specs_[i].device.name();
            if (specs_[i].placed_automatically) stats["device_setting"] = "auto";
            stats["busy_seconds"] = static_cast<double>(busy_ns_[i].load()) * 1e-9;
            stats["export_seconds"] = export_seconds[i];  // at the end: its terms exported, then it was freed
            stats["free_seconds"] = free_seconds[i];
            stats["collections_owned"] = std::count(specs_[i].owned.begin(), specs_[i].owned.end(), true);
            stats["expected_tokens_from_sample"] = expected_tokens_.at(i);
            indexers.push_back(std::move(stats));
            state.terms += terms.size();
            dictionary_.insert(dictionary_.end(), std::make_move_iterator(terms.begin()),
                               std::make_move_iterator(terms.end()));
            std::vector<DictionaryTerm>().swap(terms);
        }
        combined_ = true;
        state.add_report_section("indexers", std::move(indexers));
        state.add_report_section("runs", runs_closed_);
        state.add_report_section("run_cuts", run_cuts_);
        state.add_stage_seconds("dictionary_trim", trim_seconds);  // of dictionary_combine
        state.add_stage_seconds("dictionary_combine", seconds_since(start));
    }

    std::vector<DictionaryTerm> take_dictionary() override {
        ensure(combined_, "the dictionary was asked for before the index node finished");
        ensure(!dictionary_taken_, "the dictionary was taken twice");
        dictionary_taken_ = true;
        return std::move(dictionary_);
    }

private:
    // The plan's device with exactly one indexer that takes terms in device
    // memory gets a route: GPU parsers there keep that indexer's
    // collections' terms on the device.
    void publish_resident_routes() {
        state_.resident_routes.clear();
        for (const auto& [device, indexer] : state_.plan.device_terms_indexer) {
            ResidentRoute route;
            route.device = device;
            route.owned.resize(kCollections);
            const auto& owned = specs_.at(indexer).owned;
            for (uint32_t c = 0; c < kCollections; ++c) route.owned[c] = owned[c] ? 1 : 0;
            state_.resident_routes.push_back(std::move(route));
        }
    }

    // Serial, in docid order: assigns runs. A run closes once it holds
    // `run_bytes` of document text, and at the end of the input.
    Work cut(const In& batch) {
        ++metrics_.items_in;
        metrics_.bytes_in += batch->text_bytes;
        auto work = std::make_shared<IndexWork>();
        work->sequence = batch->sequence;
        work->batch = batch;
        work->run = current_run_;
        if (run_documents_.empty() && run_text_bytes_ == 0) run_first_docid_ = batch->first_docid;
        run_documents_.insert(run_documents_.end(), batch->docs.begin(), batch->docs.end());
        run_text_bytes_ += batch->text_bytes;
        if (batch->end_of_input) seen_end_of_input_ = true;
        if (run_text_bytes_ >= run_bytes_ || batch->end_of_input) {
            // What each run holds, for the report: how memory.run_bytes cut.
            run_cuts_.push_back({{"run", current_run_},
                                 {"first_docid", run_first_docid_},
                                 {"documents", run_documents_.size()},
                                 {"text_bytes", run_text_bytes_}});
            work->closes_run = true;
            work->run_documents = std::make_shared<const std::vector<ParsedDoc>>(std::move(run_documents_));
            run_documents_.clear();
            run_text_bytes_ = 0;
            ++current_run_;
            runs_closed_ = current_run_;
        }
        return work;
    }

    // A device indexer: the async_node's body only restores order and queues
    // the work on the indexer's own thread, which reports back through the
    // gateway (reserve_wait keeps the graph waiting until it has).
    void add_offloaded_indexer(size_t i) {
        workers_[i] = std::make_unique<AsyncWorker>("invidx-gpuindex");
        auto body = std::make_unique<OffloadedBody>(
            state_.graph, flow::serial, [this, i](const Work& work, OffloadedBody::gateway_type& gateway) {
                run_guarded(metrics_, [&] {
                    orders_[i].push(work->sequence, work, [&](const Work& next) {
                        gateway.reserve_wait();
                        workers_[i]->submit([this, i, next, &gateway] {
                            try {
                                if (!state_.graph.is_cancelled()) {
                                    run_guarded(metrics_, [&] {
                                        index(i, *next, [&](Out postings) { gateway.try_put(std::move(postings)); });
                                    });
                                }
                            } catch (...) {
                                state_.fail(std::current_exception());
                            }
                            gateway.release_wait();
                        });
                    });
                });
            });
        flow::make_edge(fanout_, *body);
        flow::make_edge(*body, output_);
        offloaded_.push_back(std::move(body));
    }

    template <class Emit>
    void index(size_t i, const IndexWork& work, Emit&& emit) {
        auto busy_total = metrics_.busy_scope();
        NodeMetrics::BusyScope busy_indexer(busy_ns_[i]);
        backends_[i]->index(*work.batch);
        if (!work.closes_run) return;
        auto postings = std::make_shared<RunPostings>(backends_[i]->end_run(
            work.run, static_cast<uint32_t>(backends_.size()), work.batch->end_of_input));
        if (i == 0) postings->documents = *work.run_documents;
        ++metrics_.items_out;
        emit(std::move(postings));
    }

    BuildState& state_;
    std::vector<IndexerSpec> specs_;
    std::vector<Device> devices_;               // specs_[i].device
    std::vector<std::unique_ptr<IndexerBackend>> backends_;  // made by take_assignment
    std::vector<uint64_t> expected_tokens_;     // per indexer, from the sample
    std::vector<DictionaryTerm> dictionary_;    // finish() fills it, take_dictionary() empties it
    bool combined_ = false;
    bool dictionary_taken_ = false;
    uint64_t run_bytes_;
    std::vector<std::atomic<uint64_t>> busy_ns_;
    uint32_t current_run_ = 0;
    uint32_t runs_closed_ = 0;
    uint64_t run_first_docid_ = 0;   // of the open run's first batch
    nlohmann::json run_cuts_ = nlohmann::json::array();
    bool seen_end_of_input_ = false;
    uint64_t run_text_bytes_ = 0;
    std::vector<ParsedDoc> run_documents_;
    // Order is restored here, not by a sequencer_node: serial oneTBB nodes do
    // not promise to run messages in arrival order (graph/in_order.hpp).
    InOrder<In> cutter_order_;
    std::vector<InOrder<Work>> orders_;
    CutterBody cutter_;
    flow::broadcast_node<Work> fanout_;
    std::vector<std::unique_ptr<IndexerBody>> indexers_;
    std::vector<std::unique_ptr<OffloadedBody>> offloaded_;
    flow::broadcast_node<Out> output_;
    // Declared last, so destroyed first: the threads stop while the nodes
    // their jobs report to still exist.
    std::vector<std::unique_ptr<AsyncWorker>> workers_;
};

// How many CPU indexers "auto" (or no count) makes: one per four cores
// beside CPU parsers; one per two cores where GPUs do all the parsing, since
// the cores the parsers would take are free and an index node with few
// indexers held the GPU-parsed stream back (docs/PERFORMANCE.md, "Pipeline
// defaults").
unsigned automatic_cpu_indexers(const BuildPlan& plan, std::string& reason) {
    const unsigned cores = plan.machine.cores;
    if (plan.parsing && plan.parsing->gpus_only()) {
        reason = "\"auto\": one per two cores where GPUs do all the parsing";
        return std::max(1u, cores / 2);
    }
    reason = "\"auto\": one per four cores";
    return std::max(1u, cores / 4);
}

// Where an indexer entry with "device": "auto" goes: one indexer on each
// GPU the parse node parses on that CUDA can use (so the GPU parsers'
// terms for it stay on the device), none where no GPU parses, and why.
struct AutomaticDevices {
    std::vector<Device> devices;
    std::string reason;
};

AutomaticDevices automatic_gpu_indexers(const BuildPlan& plan) {
    AutomaticDevices out;
    const std::vector<int> parsing = plan.parsing ? plan.parsing->gpu_ordinals() : std::vector<int>{};
    const std::vector<int>& present = plan.machine.gpus;
    for (const int ordinal : parsing)
        if (std::find(present.begin(), present.end(), ordinal) != present.end())
            out.devices.push_back(Device::gpu(ordinal));
    if (!out.devices.empty()) {
        std::string list;
        for (const auto& device : out.devices) list += (list.empty() ? "" : ", ") + device.name();
        out.reason = "\"device\": \"auto\": on the GPUs that parse (" + list + ")";
    } else if (parsing.empty()) {
        out.reason = "\"device\": \"auto\": no GPU parses, so no GPU indexer";
    } else {
        out.reason = "\"device\": \"auto\": the parsing GPUs are not CUDA devices here (" +
                     (present.empty() ? plan.machine.gpus_note : std::string("other ordinals")) + "), so no GPU indexer";
    }
    return out;
}

// One "indexers" entry, read and checked; "auto" devices not yet placed.
struct IndexerEntry {
    IndexerPlan indexer;   // its device: the CPU where "auto"
    bool automatic_device = false;
    unsigned count = 1;
};

IndexerEntry read_indexer_entry(const nlohmann::json& item, const std::string& pointer, unsigned automatic) {
    if (!item.is_object()) throw ConfigError(pointer, "expected an object such as {\"kind\": \"cpu_btree\", \"count\": 2}");
    NodeSpec spec;
    spec.kind = "indexer";
    spec.pointer = pointer;
    spec.options = item;
    NodeOptions options(spec);
    IndexerEntry entry;
    entry.indexer.pointer = pointer;
    entry.indexer.kind = options.string("kind", "cpu_btree");
    const std::string device = options.string("device", "cpu");
    entry.automatic_device = device == "auto";
    if (!entry.automatic_device) {
        const std::optional<Device> parsed = parse_device(device);
        if (!parsed)
            throw ConfigError(pointer + "/device", "unknown device '" + device + "'; use \"cpu\", \"gpu:N\" or \"auto\"");
        entry.indexer.device = *parsed;
    }
    // No count is "auto" (as docs/PIPELINE.md says): CPU entries get the
    // automatic number; GPU ones 1, since a device's own parallelism does
    // the work, not more host threads.
    const unsigned automatic_count = device == "cpu" ? automatic : 1u;
    entry.count = options.count(automatic_count, automatic_count);
    if (entry.automatic_device && entry.indexer.kind == "cpu_btree")
        throw ConfigError(pointer + "/device", "\"auto\" places GPU indexer kinds (gpu_hash, gpu_btree); "
                                               "'cpu_btree' runs on \"cpu\"");
    // Occurrences per pinned staging buffer (one device launch each); only
    // device indexers have one, so a CPU entry rejects the key.
    if (device != "cpu") {
        entry.indexer.staging_occurrences = options.unsigned_integer("staging_occurrences", 0);
        if (item.contains("staging_occurrences") &&
            (entry.indexer.staging_occurrences == 0 || entry.indexer.staging_occurrences >= (uint64_t{1} << 31)))
            throw ConfigError(pointer + "/staging_occurrences", "must lie in [1, 2^31-1]");
    }
    options.reject_unread();
    return entry;
}

// Every kind is checked here, with the rest of the graph's configuration,
// before the (possibly long) sampling.
void check_indexer(const IndexerPlan& indexer, const MachineResources& machine) {
    indexer_registry().get(indexer.kind, indexer.pointer + "/kind");
    IndexerSpec probe;
    probe.kind = indexer.kind;
    probe.device = indexer.device;
    probe.pointer = indexer.pointer;
    indexer_registry().validate(probe, machine);
}

}  // namespace

void resolve_index_node(NodeOptions& options, const PipelineConfig& config, BuildPlan& plan) {
    if (plan.indexing) throw ConfigError(options.spec().pointer, "a pipeline has at most one \"index\" node");
    IndexPlan indexing;
    indexing.run_bytes = options.unsigned_integer("run_bytes", config.memory.run_bytes);
    if (indexing.run_bytes == 0) throw ConfigError(options.pointer("run_bytes"), "must be positive");
    const unsigned automatic = automatic_cpu_indexers(plan, indexing.cpu_indexers_reason);
    const AutomaticDevices automatic_devices = automatic_gpu_indexers(plan);

    const nlohmann::json& list = options.raw("indexers");
    const std::string at = options.pointer("indexers");
    std::vector<IndexerEntry> entries;
    if (list.is_null()) {
        IndexerEntry entry;
        entry.indexer = {"cpu_btree", Device::cpu(), at};
        entry.count = automatic;
        entries.push_back(entry);
    } else if (!list.is_array() || list.empty()) {
        throw ConfigError(at, "expected a non-empty array of indexers, e.g. [{\"kind\": \"cpu_btree\", \"count\": 2}]");
    } else {
        for (size_t i = 0; i < list.size(); ++i)
            entries.push_back(read_indexer_entry(list[i], at + "/" + std::to_string(i), automatic));
    }
    for (const IndexerEntry& entry : entries) {
        indexing.any_automatic_device |= entry.automatic_device;
        std::vector<IndexerPlan> placed;
        if (!entry.automatic_device) {
            placed.push_back(entry.indexer);
        } else {
            for (const Device& device : automatic_devices.devices) {
                IndexerPlan indexer = entry.indexer;
                indexer.device = device;
                indexer.placed_automatically = true;
                placed.push_back(indexer);
            }
        }
        for (IndexerPlan& indexer : placed) {
            check_indexer(indexer, plan.machine);
            indexer.takes_device_terms = indexer_registry().takes_device_terms(indexer.kind);
            for (unsigned k = 0; k < entry.count; ++k) indexing.indexers.push_back(indexer);
        }
    }
    if (indexing.indexers.empty())
        throw ConfigError(at, "no indexer: every entry has \"device\": \"auto\" and " + automatic_devices.reason +
                                  "; add a {\"kind\": \"cpu_btree\"} entry");
    indexing.automatic_device_reason = automatic_devices.reason;
    plan.indexing = std::move(indexing);
}

std::unique_ptr<Node> make_index_node(NodeOptions&, RunState& state) {
    ensure(state.plan.indexing.has_value(), "the index node was made without its plan");
    const IndexPlan& indexing = *state.plan.indexing;
    std::vector<IndexerSpec> specs;
    for (const IndexerPlan& indexer : indexing.indexers) {
        IndexerSpec spec;
        spec.kind = indexer.kind;
        spec.device = indexer.device;
        spec.pointer = indexer.pointer;
        spec.indexer_id = static_cast<uint32_t>(specs.size());
        spec.positional = state.config.analysis.positions;
        spec.staging_occurrences = indexer.staging_occurrences;
        spec.placed_automatically = indexer.placed_automatically;
        specs.push_back(std::move(spec));
    }
    auto node = std::make_unique<IndexNode>(state, std::move(specs), indexing.run_bytes);
    // Where "auto" put GPU indexers, or why nowhere.
    if (indexing.any_automatic_device) state.add_report_section("gpu_indexers", indexing.automatic_device_reason);
    return node;
}

}  // namespace invidx
