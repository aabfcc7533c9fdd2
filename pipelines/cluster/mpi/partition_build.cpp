#include "pipelines/cluster/mpi/partition_build.hpp"

#include <mpi.h>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_reduce.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "graph/resource_usage.hpp"
#include "graph/seconds_since.hpp"
#include "invidx/error.hpp"
#include "pipelines/cluster/collection_ownership.hpp"
#include "pipelines/cluster/control_messages.hpp"
#include "pipelines/cluster/file_ranges.hpp"
#include "pipelines/cluster/file_work.hpp"
#include "pipelines/cluster/mpi/cluster_finish.hpp"
#include "pipelines/cluster/mpi/cluster_nodes.hpp"
#include "pipelines/cluster/mpi/cluster_start.hpp"
#include "pipelines/cluster/mpi/dictionary_join.hpp"
#include "pipelines/cluster/mpi/documents_join.hpp"
#include "pipelines/cluster/mpi/mpi_session.hpp"
#include "pipelines/cluster/mpi/postings_exchange.hpp"
#include "pipelines/cluster/postings_wire.hpp"
#include "pipelines/cluster/rank_figures.hpp"
#include "pipelines/cluster/share_config.hpp"
#include "pipelines/resolve_plan.hpp"
#include "store/concatenate.hpp"
#include "store/durable_sync.hpp"
#include "store/index_layout.hpp"
#include "store/index_reader.hpp"
#include "store/index_writer.hpp"

namespace invidx {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

// Where the distributor goes: right after the node the plan names as the one
// that regroups batches by trie collection, whose batches it splits.
size_t regroup_position(const PipelineConfig& config, const BuildPlan& plan) {
    if (plan.regrouping_node)
        for (size_t i = 0; i < config.nodes.size(); ++i)
            if (config.nodes[i].pointer == *plan.regrouping_node) return i;
    throw ConfigError("/nodes", "a partition cluster build sends regrouped postings between ranks, so its pipeline "
                                "needs a \"regroup\" node (or set \"cluster\": {\"mode\": \"files\"})");
}

// One rank's build as its phases share it: who the rank is, its indexers,
// the files and folders the plan gave it, and the times the report gives.
struct RankBuild {
    RankBuild(const PipelineConfig& config, const RunOptions& options, const BuildHooks& hooks,
              const NodeRegistry& registry);

    const PipelineConfig& config;
    const RunOptions& options;
    const BuildHooks& hooks;
    const NodeRegistry& registry;
    Clock::time_point start;
    double sync_wait_at_start = 0;
    // This machine's cores and GPUs, listed on a thread of its own while MPI
    // starts: CUDA's start (0.1-0.2 s where there are GPUs) overlaps MPI_Init's.
    std::future<MachineResources> machine;
    int rank = 0;
    int ranks = 1;
    double mpi_start_seconds = 0;
    double rank_plan_seconds = 0;  // this rank's plan, after MPI's start: what the GPUs' listing still took
    std::string who;  // "rank r of n", in every error
    Messages messages;
    size_t regroup_at = 0;
    IndexPlan indexing;                // this rank's indexers, as its plan placed them
    std::vector<std::string> devices;  // of this rank's indexers
    std::vector<bool> fed_on_device;   // per indexer: its GPU parsers leave its terms on its device
    uint32_t exchange_credits = 0;
    // What a byte of a one-stream gzip file weighs in cutting the file
    // list ("work"); rank 0's is the one used (file_work.hpp).
    double stream_weight = 1.0;

    // From the plan.
    std::optional<IndexWriter> writer;  // rank 0's
    std::vector<InputFile> files;
    fs::path parts_dir;
    std::vector<FileRange> ranges;  // per rank
    FileRange range;                // this rank's
    double plan_seconds = 0;
    double sampling_seconds = 0;

    bool parses() const { return range.begin < range.end; }
    bool parallel_join() const { return config.cluster->join == DictionaryJoinMode::parallel; }
    std::string range_text() const {
        return parses() ? "input files " + std::to_string(range.begin) + "-" + std::to_string(range.end - 1)
                        : "no input files";
    }
    fs::path rank_dir() const { return parts_dir / ("rank-" + std::to_string(rank)); }
    // The part this rank's pipeline for `source`'s stream writes.
    fs::path part_dir(int source) const { return rank_dir() / ("from-" + std::to_string(source)); }
};

// Configuration errors first, on every rank alike, before any message.
RankBuild::RankBuild(const PipelineConfig& config_, const RunOptions& options_, const BuildHooks& hooks_,
                     const NodeRegistry& registry_)
    : config(config_),
      options(options_),
      hooks(hooks_),
      registry(registry_),
      start(Clock::now()),
      sync_wait_at_start(sync_wait_seconds()),
      machine(std::async(std::launch::async, this_machine)),
      rank(MpiSession::get().rank()),  // MPI_Init on the first call: counted in the build, reported apart
      ranks(MpiSession::get().size()),
      mpi_start_seconds(seconds_since(start)),
      who("rank " + std::to_string(rank) + " of " + std::to_string(ranks)),
      messages(rank, ranks) {
    // This rank's plan, from its own cores and GPUs, as its pipelines will
    // resolve it.
    const auto plan_start = Clock::now();
    const BuildPlan plan = resolve_build_plan(config, registry, machine.get());
    rank_plan_seconds = seconds_since(plan_start);
    regroup_at = regroup_position(config, plan);
    if (!plan.indexing) throw ConfigError("/nodes", "a partition cluster build needs an \"index\" node");
    indexing = *plan.indexing;
    for (const Device& device : plan.indexing->devices()) devices.push_back(device.name());
    fed_on_device = plan.fed_on_device;
    exchange_credits = config.cluster->exchange_credits.value_or(plan.tokens);
    if (config.cluster->assign_files == FileAssignment::by_work) stream_weight = stream_file_weight(config, plan);
}

// Plan: rank 0 expands the input and takes the output (lock, temporary
// directory), then tells every rank the file list and where parts go; each
// rank parses its range of the sorted files.
void plan_files(RankBuild& build) {
    const auto plan_start = Clock::now();
    ClusterPlan plan = start_cluster_build(build.config, build.options, build.hooks, build.messages, build.who,
                                           build.stream_weight, build.writer);
    build.plan_seconds = seconds_since(plan_start);
    build.files = std::move(plan.files);
    build.parts_dir = plan.parts_dir;
    build.stream_weight = plan.stream_file_weight;  // rank 0's, for the report
    build.ranges = assign_file_ranges(plan.file_weights, static_cast<uint32_t>(build.ranks));
    build.range = build.ranges[static_cast<size_t>(build.rank)];
}

// Sample and own: collection ownership over every rank's indexers: each rank samples its
// own files, rank 0 decides, every rank learns it.
RankOwnership sample_and_own(RankBuild& build) {
    const auto sampling_start = Clock::now();
    ControlMessage sample;
    try {
        sample = sample_own_files(build.config, files_of_range(build.files, build.range), build.devices,
                                  build.fed_on_device);
    } catch (const std::exception& error) {
        sample = FailureMessage{.error = build.who + " (" + build.range_text() + "): sampling failed: " + error.what()};
    }
    const std::vector<ControlMessage> samples = build.messages.gather(sample);
    std::optional<ControlMessage> decided;
    if (build.rank == 0) decided = decide_ownership(build.config, samples);
    ControlMessage ownership = build.messages.broadcast(std::move(decided));
    if (const auto* failure = std::get_if<FailureMessage>(&ownership)) {
        build.writer.reset();
        throw Error(failure->error);
    }
    build.sampling_seconds = seconds_since(sampling_start);
    return rank_ownership(expect<OwnershipMessage>(std::move(ownership)), build.rank, build.devices.size(),
                          build.who);
}

// One pipeline of this rank: its own files' (source == rank) or another
// rank's stream.
struct Share {
    int source = 0;
    std::future<BuildReport> future;
    bool done = false;
    json report = json::object();
    std::vector<DictionaryTerm> dictionary;  // as its pipeline wrote it, for adopt_source_parts
    std::exception_ptr failure;
    std::string error;
    bool interrupted = false;
};

// This rank's side of the postings exchange and the pipelines it feeds,
// kept until the build ends: after a failure a pipeline may still run,
// using the exchange and the registry, until its share is destroyed.
struct RankPipelines {
    RankPipelines(const RankBuild& build, const RankOwnership& ownership);

    PostingsExchange exchange;
    std::shared_ptr<ExchangeCredits> credits;
    std::shared_ptr<const std::vector<uint32_t>> owner_rank;
    NodeRegistry registry;  // the caller's kinds and the two the build makes
    std::stop_source stop;
    std::stop_callback<std::function<void()>> forward;  // the caller's stop request reaches the pipelines
    std::vector<Share> shares;  // last: destroyed first, each waiting for its pipeline

    // How the exchange ended.
    ExchangeFigures exchanged;
    std::string local_error;  // this rank's first failure
    bool stopped_by_peer = false;
};

RankPipelines::RankPipelines(const RankBuild& build, const RankOwnership& ownership)
    : exchange(build.rank, build.ranks),
      credits(std::make_shared<ExchangeCredits>(build.exchange_credits)),
      owner_rank(ownership.owner_rank),
      forward(build.options.stop, [this] { stop.request_stop(); }) {
    for (const auto& kind : build.registry.kinds())
        registry.add(kind.name, kind.description, kind.factory, kind.resolve);
    registry.add("cluster_distribute", "a partition cluster build's distributor (made by the build itself)",
                 [this](NodeOptions& node_options, RunState& state) {
                     return make_distribute_node(node_options, state, exchange, credits, owner_rank);
                 });
    registry.add("cluster_receive", "another rank's postings in a partition cluster build (made by the build)",
                 [this](NodeOptions& node_options, RunState& state) {
                     const auto source = static_cast<int>(node_options.unsigned_integer("source", 0));
                     return make_receive_node(node_options, state, exchange.channel(source), source);
                 });
}

const Share* own_share(const RankBuild& build, const RankPipelines& pipelines) {
    for (const auto& share : pipelines.shares)
        if (share.source == build.rank) return &share;
    return nullptr;
}

// One pipeline per source: this rank's own files (where it has any) and
// every other rank's stream.
void start_shares(const RankBuild& build, const RankOwnership& ownership, RankPipelines& pipelines) {
    for (int source = 0; source < build.ranks; ++source) {
        if (source == build.rank && !build.parses()) continue;
        RunOptions options;
        options.stop = pipelines.stop.get_token();
        options.notice = build.options.notice;
        BuildHooks hooks;
        hooks.files = files_of_range(build.files, build.ranges[static_cast<size_t>(source)]);
        hooks.assignment = ownership.local;
        hooks.durable_output = false;  // its runs are adopted and synced, the rest rewritten
        hooks.keep_dictionary = true;  // merged in memory, not read back
        hooks.check_duplicate_names = false;  // the joined index is checked whole
        Share& share = pipelines.shares.emplace_back();
        share.source = source;
        const RankLayout layout{
            .rank = build.rank, .ranks = build.ranks, .regroup_at = build.regroup_at, .indexing = &build.indexing};
        share.future = std::async(std::launch::async,
                                  [config = share_config(build.config, layout, source, build.part_dir(source)),
                                   options = std::move(options), hooks = std::move(hooks),
                                   &registry = pipelines.registry] {
                                      return run_pipeline(config, options, hooks, registry);
                                  });
    }
}

// A rank with nothing to parse still ends its stream on every other rank.
void end_empty_stream(const RankBuild& build, RankPipelines& pipelines) {
    RegroupedBatch end;
    end.end_of_input = true;
    for (int d = 0; d < build.ranks; ++d) {
        if (d == build.rank) continue;
        std::string message;
        postings_wire::encode_batch(end, *pipelines.owner_rank, static_cast<uint32_t>(d),
                                    build.config.analysis.positions, message);
        pipelines.exchange.post_batch(d, std::move(message), {});
    }
    pipelines.exchange.finish_local(true);
}

// A finished pipeline's report, or how it failed.
void collect(Share& share) {
    share.done = true;
    try {
        BuildReport built = share.future.get();
        share.report = std::move(built.json);
        share.dictionary = std::move(built.dictionary);
    } catch (const Interrupted&) {
        share.failure = std::current_exception();
        share.interrupted = true;
    } catch (const std::exception& error) {
        share.failure = std::current_exception();
        share.error = error.what();
    }
}

// The main thread moves the messages and watches the pipelines: the first
// failure here, or a peer's, stops every pipeline of this rank.
void move_postings(const RankBuild& build, RankPipelines& pipelines) {
    bool stopping = false;
    const auto stop_all = [&] {
        if (stopping) return;
        stopping = true;
        pipelines.stop.request_stop();
        for (int s = 0; s < build.ranks; ++s) pipelines.exchange.channel(s).close();
    };
    const auto step = [&] {
        if (build.options.stop.stop_requested()) stop_all();
        bool all_done = true;
        for (auto& share : pipelines.shares) {
            if (share.done) continue;
            if (share.future.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
                all_done = false;
                continue;
            }
            collect(share);
            if (share.source == build.rank) pipelines.exchange.finish_local(!share.failure);
            if (share.failure && !share.interrupted && !stopping) {
                pipelines.local_error = share.source == build.rank
                                            ? build.who + " (" + build.range_text() + "): " + share.error
                                            : build.who + " (indexing the postings of rank " +
                                                  std::to_string(share.source) + "): " + share.error;
                std::fprintf(stderr, "invidx-run: %s\n", pipelines.local_error.c_str());
            }
            if (share.failure) stop_all();
        }
        return all_done;
    };
    const auto on_peer_failed = [&](int source) {
        if (stopping) return;
        pipelines.stopped_by_peer = true;
        std::fprintf(stderr, "invidx-run: %s: stopped early: rank %d failed\n", build.who.c_str(), source);
        stop_all();
    };
    try {
        pipelines.exchange.run(step, on_peer_failed);
    } catch (const std::exception& error) {
        if (pipelines.local_error.empty()) pipelines.local_error = build.who + ": " + error.what();
    }
    pipelines.exchanged = pipelines.exchange.figures();
}

// Exchange: this rank's pipelines: its own files up to the distributor and its
// indexers, and one per other rank indexing that rank's stream; the
// postings move between the ranks until every pipeline is done.
void exchange_postings(const RankBuild& build, const RankOwnership& ownership, RankPipelines& pipelines) {
    start_shares(build, ownership, pipelines);
    if (!build.parses()) end_empty_stream(build, pipelines);
    move_postings(build, pipelines);
}

// Each share's part, with its source's first docid (none yet: 0).
std::vector<SourcePart> source_parts(const RankBuild& build, RankPipelines& pipelines,
                                     const std::vector<uint64_t>& first_docids) {
    std::vector<SourcePart> parts;
    for (auto& share : pipelines.shares)
        parts.push_back(SourcePart{.directory = build.part_dir(share.source),
                                   .first_docid = first_docids.empty()
                                                      ? 0
                                                      : first_docids.at(static_cast<size_t>(share.source)),
                                   .dictionary = &share.dictionary});
    return parts;
}

// This rank's figures for the report's "per_rank".
json rank_figures(const RankBuild& build, const RankPipelines& pipelines, uint32_t part_runs, bool interrupted) {
    const Share* own = own_share(build, pipelines);
    const json own_report = own ? own->report : json::object();
    uint64_t part_terms = 0;
    double index_busy_seconds = 0;
    for (const auto& share : pipelines.shares) {
        index_busy_seconds += busy_of_kind(share.report.value("nodes", json::array()), "index");
        part_terms += share.report.value("terms", uint64_t{0});
    }
    const ExchangeFigures& exchanged = pipelines.exchanged;
    const ExchangeCreditFigures credits = pipelines.credits->figures();
    json figures = share_figures(build.rank, build.range, build.files, own_report);
    figures.update({{"part_terms", part_terms},
                    {"part_runs", part_runs},
                    {"build_seconds", seconds_since(build.start)},
                    {"mpi_start_seconds", build.mpi_start_seconds},
                    {"rank_plan_seconds", build.rank_plan_seconds},
                    {"plan_seconds", build.plan_seconds},
                    {"sampling_seconds", build.sampling_seconds},
                    {"sync_wait_seconds", sync_wait_seconds() - build.sync_wait_at_start},
                    {"distribute_busy_seconds",
                     busy_of_kind(own_report.value("nodes", json::array()), "cluster_distribute")},
                    {"index_busy_seconds", index_busy_seconds},
                    {"exchange_busy_seconds", exchanged.busy_seconds},
                    {"postings_bytes_sent", exchanged.batch_bytes_sent},
                    {"postings_bytes_received", exchanged.batch_bytes_received},
                    {"postings_messages_sent", exchanged.batch_messages_sent},
                    {"postings_messages_received", exchanged.batch_messages_received},
                    {"peak_unacknowledged_messages", exchanged.peak_unacknowledged},
                    {"exchange_credits", credits.capacity},
                    {"peak_exchange_credits_in_use", credits.peak_in_use},
                    {"batches_waiting_for_credit", credits.waited},
                    {"credit_wait_seconds", credits.wait_seconds},
                    {"ok", pipelines.local_error.empty() && !pipelines.stopped_by_peer && !interrupted},
                    {"stopped_by_peer", pipelines.stopped_by_peer},
                    {"interrupted", interrupted},
                    {"error", pipelines.local_error}});
    return figures;
}

// Where the parts go, as place_parts settles it.
struct Placement {
    PlacementMessage placed;
    uint32_t part_runs = 0;  // run files this rank's parts hold
    json figures;            // this rank's
    json per_rank = json::array();  // rank 0: every rank's figures
    // Rank 0, serial join: every source's own part, opened before any rank
    // moves the parts' run files away (an open reader keeps the documents mapped).
    std::vector<std::unique_ptr<IndexReader>> document_parts;
};

// Rank 0, from every rank's figures: the failures, or each source's first
// docid and each rank's first run.
ControlMessage decide_placement(const RankBuild& build, const std::vector<ControlMessage>& received,
                                Placement& placement) {
    std::string failures;
    bool interrupted = false;
    PlacementMessage placed;
    uint64_t documents = 0;
    uint64_t runs = 0;
    for (const auto& message : received) {
        if (const auto* failure = std::get_if<FailureMessage>(&message)) {
            interrupted = interrupted || failure->interrupted;
            if (!failure->error.empty()) failures += (failures.empty() ? "" : "; ") + failure->error;
            continue;
        }
        const auto& figures = std::get<FiguresMessage>(message);
        placement.per_rank.push_back(figures.figures);
        placed.first_docids.push_back(documents);
        documents += figures.documents;
        // Rank by rank, and on each rank in (source, run) order: the lists
        // of a term, which one rank owns, follow increasing docids.
        placed.first_runs.push_back(static_cast<uint32_t>(runs));
        runs += figures.part_runs;
    }
    if (failures.empty() && runs > UINT32_MAX) failures = "the index would hold more than 2^32 runs";
    placement.document_parts.resize(static_cast<size_t>(build.ranks));
    for (int s = 0; s < build.ranks && failures.empty() && !build.parallel_join(); ++s) {
        if (build.ranges[static_cast<size_t>(s)].begin == build.ranges[static_cast<size_t>(s)].end) continue;
        try {
            placement.document_parts[static_cast<size_t>(s)] = std::make_unique<IndexReader>(
                build.parts_dir / ("rank-" + std::to_string(s)) / ("from-" + std::to_string(s)));
        } catch (const std::exception& error) {
            failures = "rank 0 of " + std::to_string(build.ranks) + ": opening the documents of rank " +
                       std::to_string(s) + " failed: " + error.what();
        }
    }
    if (failures.empty() && interrupted) failures = "interrupted";
    if (failures.empty() && documents > uint64_t{UINT32_MAX} + 1)
        failures = "the index would hold more than 2^32 documents";
    if (!failures.empty()) return FailureMessage{.error = failures, .interrupted = interrupted};
    return placed;
}

// Every rank ends alike when a rank failed: Interrupted where this rank was
// stopped by its caller, else the failure, named as this rank's own or
// another's.
[[noreturn]] void fail_everywhere(RankBuild& build, const FailureMessage& failure, bool failed_here) {
    if (build.rank == 0) build.writer.reset();  // every rank has stopped writing into it
    if (failure.interrupted && build.options.stop.stop_requested()) throw Interrupted();
    if (build.rank == 0 || failed_here) throw Error(failure.error);
    throw Error(build.who + ": stopped because the build failed elsewhere: " + failure.error);
}

// Join, first: every rank's figures to rank 0, which decides: the failures, or each
// source's first docid and each rank's first run.
Placement place_parts(RankBuild& build, RankPipelines& pipelines) {
    Placement placement;
    if (pipelines.local_error.empty() && !pipelines.stopped_by_peer) {
        try {
            placement.part_runs = count_part_runs(source_parts(build, pipelines, {}));
        } catch (const std::exception& error) {
            pipelines.local_error = build.who + ": reading its parts failed: " + error.what();
        }
    }
    const bool interrupted =
        std::any_of(pipelines.shares.begin(), pipelines.shares.end(), [](const Share& s) { return s.interrupted; }) &&
        build.options.stop.stop_requested();
    placement.figures = rank_figures(build, pipelines, placement.part_runs, interrupted);
    const auto wait_start = Clock::now();
    MPI_Barrier(MPI_COMM_WORLD);
    placement.figures["wait_seconds"] = seconds_since(wait_start);
    placement.figures["bytes_sent"] = pipelines.exchanged.bytes_sent + build.messages.sent();
    placement.figures["bytes_received"] = pipelines.exchanged.bytes_received + build.messages.received();
    placement.figures["peak_rss_bytes"] = peak_rss_bytes();
    const ControlMessage mine =
        !pipelines.local_error.empty() || interrupted
            ? ControlMessage(FailureMessage{.error = pipelines.local_error, .interrupted = interrupted})
            : ControlMessage(FiguresMessage{.documents = placement.figures.at("documents").get<uint64_t>(),
                                            .part_runs = placement.part_runs,
                                            .figures = placement.figures});
    const std::vector<ControlMessage> received = build.messages.gather(mine);
    std::optional<ControlMessage> decided;
    if (build.rank == 0) decided = decide_placement(build, received, placement);
    const ControlMessage placed = build.messages.broadcast(std::move(decided));
    if (const auto* failure = std::get_if<FailureMessage>(&placed))
        fail_everywhere(build, *failure, !pipelines.local_error.empty());
    placement.placed = expect<PlacementMessage>(placed);
    return placement;
}

// What adopt_parts leaves for the rest of the join.
struct AdoptedParts {
    // Parallel join: this rank's own documents, opened before its run
    // files move away (the reader keeps them mapped), and its terms, checked.
    std::unique_ptr<IndexReader> own_documents;
    std::vector<DictionaryTerm> owned_terms;
    uint64_t owned_postings = 0;
    std::string error;                    // this rank's own failure
    std::vector<ControlMessage> reports;  // rank 0: every rank's runs, or its failure
};

// This rank's terms point at its own runs only: checked here, so that the
// ranks joining them need no other rank's runs. Their postings, summed.
uint64_t check_owned_terms(const OwnedTerms& owned) {
    RunSlotPostings slots;
    for (const auto& run : owned.runs) slots[run.run] = run.slots;
    return oneapi::tbb::parallel_reduce(
        oneapi::tbb::blocked_range<size_t>(0, owned.dictionary.size(), 4096), uint64_t{0},
        [&](const oneapi::tbb::blocked_range<size_t>& terms, uint64_t postings) {
            for (size_t t = terms.begin(); t < terms.end(); ++t)
                postings += checked_term_postings(owned.dictionary[t], slots);
            return postings;
        },
        std::plus<>());
}

// This rank's per-source parts' runs moved into rank 0's temporary
// directory as runs of the joined index, and its dictionary part: kept in
// memory for a parallel join, written beside its parts for a serial one.
RunsMessage adopt_runs(const RankBuild& build, RankPipelines& pipelines, const Placement& placement,
                       AdoptedParts& adopted) {
    RunsMessage runs;
    runs.adopted = true;
    runs.with_slots = !build.parallel_join();  // rank 0 checks the dictionary's pointers only in a serial join
    OwnedTerms owned = adopt_source_parts(source_parts(build, pipelines, placement.placed.first_docids),
                                          placement.placed.first_runs.at(static_cast<size_t>(build.rank)),
                                          build.parts_dir.parent_path());
    runs.terms = owned.dictionary.size();
    if (build.parallel_join()) {
        adopted.owned_postings = check_owned_terms(owned);
        adopted.owned_terms = std::move(owned.dictionary);
    } else {
        write_dictionary_part(build.rank_dir() / "dictionary.part", owned.dictionary);
    }
    runs.runs = std::move(owned.runs);
    return runs;
}

// Join, then: each rank moves its per-source parts' runs into rank 0's temporary
// directory as runs of the joined index, each with its source's first docid
// as its base (no postings read or written again), and tells rank 0.
AdoptedParts adopt_parts(RankBuild& build, RankPipelines& pipelines, const Placement& placement) {
    const auto merge_start = Clock::now();
    AdoptedParts adopted;
    if (build.parallel_join() && build.parses()) {
        try {
            adopted.own_documents = std::make_unique<IndexReader>(build.part_dir(build.rank));
        } catch (const std::exception& error) {
            adopted.error = build.who + ": opening its documents failed: " + std::string(error.what());
        }
    }
    RunsMessage runs;
    if (placement.part_runs > 0 && adopted.error.empty()) {
        try {
            runs = adopt_runs(build, pipelines, placement, adopted);
        } catch (const std::exception& error) {
            adopted.error = build.who + ": adopting its runs failed: " + std::string(error.what());
        }
    }
    runs.merge_seconds = seconds_since(merge_start);
    const ControlMessage mine =
        adopted.error.empty() ? ControlMessage(std::move(runs)) : ControlMessage(FailureMessage{.error = adopted.error});
    adopted.reports = build.messages.gather(mine);
    return adopted;
}

// What join_parts joined.
struct JoinedParts {
    Clock::time_point join_start;
    std::vector<WrittenRun> runs;  // rank 0: every rank's
    std::string failures;          // rank 0: every rank's so far
    JoinedDictionary dictionary;   // parallel join
    JoinedDocuments documents;     // parallel join
    double dictionary_join_seconds = 0;
    double documents_join_seconds = 0;
};

// Rank 0: every rank's runs, its figures of them in `per_rank`, and the
// failures.
void collect_runs(const std::vector<ControlMessage>& reports, json& per_rank, JoinedParts& joined) {
    for (size_t r = 0; r < reports.size(); ++r) {
        if (const auto* failure = std::get_if<FailureMessage>(&reports[r])) {
            joined.failures += (joined.failures.empty() ? "" : "; ") + failure->error;
            continue;
        }
        const auto& report = std::get<RunsMessage>(reports[r]);
        json& figures_of = per_rank[r];
        figures_of["merge_seconds"] = report.merge_seconds;
        if (!report.adopted) continue;
        uint64_t postings_owned = 0;
        for (const auto& run : report.runs) {
            joined.runs.push_back(run);
            postings_owned += run.postings;
        }
        figures_of["runs"] = report.runs.size();
        figures_of["terms_owned"] = report.terms;
        figures_of["postings_owned"] = postings_owned;
    }
}

// Join, last: the dictionary parts and the documents joined: by every rank, each
// its range of the terms and its own documents, or by rank 0 alone (in
// the finish). Rank 0 first learns every rank's runs and failures so far.
JoinedParts join_parts(RankBuild& build, Placement& placement, AdoptedParts& adopted) {
    JoinedParts joined;
    joined.join_start = Clock::now();
    if (build.rank == 0) collect_runs(adopted.reports, placement.per_rank, joined);
    if (!build.parallel_join()) return joined;
    const auto join_hook = [&](std::string_view join) -> std::function<void(int)> {
        if (!build.hooks.at_cluster_join) return {};
        return [&hooks = build.hooks, join](int joining) { hooks.at_cluster_join(joining, join); };
    };
    joined.dictionary = join_dictionary(
        DictionaryJoin{.rank = build.rank, .ranks = build.ranks, .parts_dir = build.parts_dir,
                       .dictionary_path = build.parts_dir.parent_path() / layout::kDictionaryFile,
                       .owned = std::move(adopted.owned_terms), .owned_postings = adopted.owned_postings,
                       .error = build.rank == 0 ? joined.failures : adopted.error,
                       .at_join = join_hook("dictionary")},
        build.messages);
    joined.dictionary_join_seconds = seconds_since(joined.join_start);
    // Then the documents, every rank its own (after the dictionary's
    // failures, which it carries on).
    const auto documents_start = Clock::now();
    joined.documents = join_documents(
        DocumentsJoin{.rank = build.rank, .ranks = build.ranks, .part = adopted.own_documents.get(),
                      .first_file = static_cast<uint32_t>(build.range.begin),
                      .documents_path = build.parts_dir / layout::kDocumentsFile, .error = joined.dictionary.error,
                      .also_sync = {build.parts_dir.parent_path() / layout::kDictionaryFile},
                      .at_join = join_hook("documents")},
        build.messages);
    joined.documents_join_seconds = seconds_since(documents_start);
    return joined;
}

// Rank 0's end, step by step, for the report.
class EndSteps {
public:
    void end(const char* name) {
        seconds[name] = seconds_since(step_start_);
        step_start_ = Clock::now();
    }
    json seconds = json::object();

private:
    Clock::time_point step_start_ = Clock::now();
};

// Rank 0: the documents, the runs and the dictionary into the index: the
// parallel join's files adopted, or (serial) the documents appended from
// each source's own part and the dictionary parts joined here.
JoinedCounts join_into_index(RankBuild& build, const Placement& placement, const JoinedParts& joined,
                             EndSteps& steps) {
    JoinedCounts counts{.input_files = build.files.size()};
    IndexWriter& writer = *build.writer;
    if (build.parallel_join()) {
        writer.adopt_documents(joined.documents.written, build.parts_dir / layout::kDocumentsFile);
        counts.documents = joined.documents.written.documents;
    } else {
        for (int s = 0; s < build.ranks; ++s) {
            const FileRange& share = build.ranges[static_cast<size_t>(s)];
            if (share.begin == share.end) continue;
            append_part_documents(*placement.document_parts[static_cast<size_t>(s)], share.begin, writer);
            counts.documents += placement.per_rank[static_cast<size_t>(s)].at("documents").get<uint64_t>();
        }
    }
    steps.end("documents");
    for (const auto& run : joined.runs) writer.adopt_run(run), counts.postings += run.postings;
    steps.end("adopt_runs");
    if (build.parallel_join()) {
        writer.adopt_dictionary(joined.dictionary.written);
        counts.terms = joined.dictionary.written.terms;
    } else {
        std::vector<DictionaryTerm> dictionary;
        for (int r = 0; r < build.ranks; ++r) {
            if (placement.per_rank[static_cast<size_t>(r)].at("part_runs").get<uint32_t>() == 0) continue;
            auto part = read_dictionary_part(build.parts_dir / ("rank-" + std::to_string(r)) / "dictionary.part");
            dictionary.insert(dictionary.end(), std::make_move_iterator(part.begin()),
                              std::make_move_iterator(part.end()));
        }
        counts.terms = dictionary.size();
        steps.end("dictionary_read");
        // Disjoint parts: write_dictionary sorts them and would refuse a
        // term that two ranks owned.
        writer.write_dictionary(std::move(dictionary));
    }
    steps.end("dictionary");
    return counts;
}

// The report's "cluster" section of a partition build.
json cluster_section(const RankBuild& build, const OwnershipMessage& ownership, const json& per_rank) {
    json indexers = json::array();
    const auto& first = ownership.first_indexer;
    for (int r = 0; r < build.ranks; ++r)
        for (uint32_t g = first[static_cast<size_t>(r)]; g < first[static_cast<size_t>(r) + 1]; ++g)
            indexers.push_back({{"rank", r},
                                {"indexer", g - first[static_cast<size_t>(r)]},
                                {"collections_owned", std::count(ownership.owner.begin(), ownership.owner.end(), g)},
                                {"expected_tokens_from_sample", ownership.expected_tokens[g]}});
    json sampled = json::array();
    for (const auto& share : ownership.sampled)
        sampled.push_back({{"bytes", share.bytes}, {"documents", share.documents}, {"files", share.files}});
    const uint64_t text_bytes = sum_over_ranks(per_rank, "text_bytes");
    const uint64_t postings_bytes = sum_over_ranks(per_rank, "postings_bytes_sent");
    return {{"mode", "partition"},
            {"assign_files", mode_name(build.config.cluster->assign_files)},
            {"stream_file_weight", build.stream_weight},
            {"join", mode_name(build.config.cluster->join)},
            {"ownership", {{"indexers", indexers},
                           {"popular_collections", ownership.popular.size()},
                           {"popular_token_fraction", ownership.popular_token_fraction},
                           {"sampled_per_rank", sampled}}},
            {"postings_bytes_exchanged", postings_bytes},
            {"postings_bytes_per_input_gb", text_bytes ? postings_bytes / (text_bytes / 1e9) : 0.0}};
}

// Rank 0: the joined index written, its report, and the index published.
json publish_joined_index(RankBuild& build, const RankOwnership& ownership, const RankPipelines& pipelines,
                          Placement& placement, AdoptedParts& adopted, JoinedParts& joined) {
    json& per_rank = placement.per_rank;
    EndSteps steps;
    if (build.parallel_join()) {
        steps.seconds["dictionary_join_all_ranks"] = joined.dictionary_join_seconds;
        steps.seconds["documents_join_all_ranks"] = joined.documents_join_seconds;
        for (const auto& f : joined.dictionary.figures)
            per_rank[static_cast<size_t>(f.at("rank").get<int>())]["join"] = f;
        for (const auto& f : joined.documents.figures)
            per_rank[static_cast<size_t>(f.at("rank").get<int>())]["documents_join"] = f;
        // The documents join carried the dictionary join's failures on.
        if (!joined.documents.error.empty()) throw Error(joined.documents.error);
    }
    if (!joined.failures.empty()) throw Error(joined.failures);
    const JoinedCounts counts = join_into_index(build, placement, joined, steps);

    const Share* own = own_share(build, pipelines);
    json report = own && own->report.contains("nodes") ? own->report : json::object();
    if (!report.contains("nodes")) report["nodes"] = json::array();
    report["nodes_of_rank"] = own ? 0 : -1;
    // The parts are not part of the index: gone before the report (which
    // times it) and the manifest.
    placement.document_parts.clear();
    adopted.own_documents.reset();
    fs::remove_all(build.parts_dir);
    steps.end("remove_parts");
    // Rank 0's end, step by step (publishing, after report.json is
    // written, is left out): what the parallel join shortens.
    steps.seconds["total"] = seconds_since(joined.join_start);
    per_rank[0]["end_seconds"] = steps.seconds;
    report["cluster"] = cluster_section(build, ownership.global, per_rank);
    report["stages"]["sampling"] = build.sampling_seconds;
    report["stages"]["cluster_merge_runs"] = largest_over_ranks(per_rank, "merge_seconds");
    report["peak_rss_bytes"] = peak_rss_bytes();
    report_and_publish(report, per_rank, counts, build.config, build.options, *build.writer, build.start,
                       joined.join_start);
    return report;
}

// Finish: rank 0 adopts the documents, the runs and the dictionary (or, serial,
// appends the documents from each source's own part and joins the
// dictionary parts alone), writes the report and publishes; every rank
// learns the outcome, so all exit alike.
BuildReport finish_and_publish(RankBuild& build, const RankOwnership& ownership, const RankPipelines& pipelines,
                               Placement& placement, AdoptedParts& adopted, JoinedParts& joined) {
    json report;
    const ClusterOutcome outcome = finish_cluster_build(build.messages, build.ranks, [&] {
        report = publish_joined_index(build, ownership, pipelines, placement, adopted, joined);
    });
    if (!outcome.ok) {
        if (build.rank == 0) build.writer.reset();
        if (outcome.interrupted && build.options.stop.stop_requested()) throw Interrupted();
        if (build.rank == 0) throw Error(outcome.error);
        if (!joined.documents.error.empty()) throw Error(joined.documents.error);  // this rank's own failure
        throw Error(build.who + ": stopped because the build failed elsewhere: " + outcome.error);
    }
    if (build.rank == 0) return BuildReport{std::move(report)};
    return BuildReport{
        json{{"rank", build.rank}, {"ranks", build.ranks}, {"per_rank", json::array({placement.figures})}}};
}

}  // namespace

BuildReport run_partition_build(const PipelineConfig& config, const RunOptions& options, const BuildHooks& hooks,
                                const NodeRegistry& registry) {
    RankBuild build(config, options, hooks, registry);
    plan_files(build);
    const RankOwnership ownership = sample_and_own(build);
    RankPipelines pipelines(build, ownership);
    exchange_postings(build, ownership, pipelines);
    // The join, in three steps: where the parts go, their runs moved, the
    // dictionary and documents joined.
    Placement placement = place_parts(build, pipelines);
    AdoptedParts adopted = adopt_parts(build, pipelines, placement);
    JoinedParts joined = join_parts(build, placement, adopted);
    return finish_and_publish(build, ownership, pipelines, placement, adopted, joined);
}

}  // namespace invidx
