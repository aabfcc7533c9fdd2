#include "pipelines/cluster/partition_build.hpp"

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
#include "nodes/index/index_node.hpp"
#include "nodes/sample/assignment.hpp"
#include "nodes/sample/sample_step.hpp"
#include "nodes/sample/sampler.hpp"
#include "pipelines/cluster/cluster_nodes.hpp"
#include "pipelines/cluster/dictionary_join.hpp"
#include "pipelines/cluster/documents_join.hpp"
#include "pipelines/cluster/cluster_finish.hpp"
#include "pipelines/cluster/cluster_start.hpp"
#include "pipelines/cluster/file_ranges.hpp"
#include "pipelines/cluster/mpi_session.hpp"
#include "pipelines/cluster/postings_exchange.hpp"
#include "pipelines/cluster/postings_wire.hpp"
#include "pipelines/cluster/rank_figures.hpp"
#include "pipelines/cluster/written_run_json.hpp"
#include "store/concatenate.hpp"
#include "store/durable_sync.hpp"
#include "store/index_layout.hpp"
#include "store/index_reader.hpp"
#include "store/index_writer.hpp"

namespace invidx {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Where the distributor goes: right after "regroup", whose batches it splits.
size_t regroup_position(const PipelineConfig& config) {
    for (size_t i = 0; i < config.nodes.size(); ++i)
        if (config.nodes[i].kind == "regroup") return i;
    throw ConfigError("/nodes", "a partition cluster build sends regrouped postings between ranks, so its pipeline "
                                "needs a \"regroup\" node (or set \"cluster\": {\"mode\": \"files\"})");
}

const NodeSpec& index_spec(const PipelineConfig& config) {
    for (const auto& spec : config.nodes)
        if (spec.kind == "index") return spec;
    throw ConfigError("/nodes", "a partition cluster build needs an \"index\" node");
}

// This rank's sample of its own files and its indexers, for rank 0.
json sample_share(const PipelineConfig& config, const std::vector<InputFile>& share,
                  const std::vector<std::string>& devices) {
    CollectionSample sample;
    if (config.sampler.enabled && !share.empty()) {
        sample = sample_collections(share, config.sampler, config.analysis);
    } else {
        sample.tokens.assign(kCollections, 0);
    }
    json tokens = json::array();  // sparse: [collection, tokens] pairs
    for (uint32_t c = 0; c < kCollections; ++c)
        if (sample.tokens[c] != 0) tokens.push_back({c, sample.tokens[c]});
    return {{"devices", devices}, {"tokens", tokens}, {"bytes", sample.bytes}, {"documents", sample.documents},
            {"files", sample.files}};
}

// Rank 0: the collections bound to all ranks' indexers (global indexer ids
// rank by rank), from every rank's sample.
json decide_ownership(const PipelineConfig& config, const std::vector<std::string>& samples) {
    std::vector<uint64_t> tokens(kCollections, 0);
    std::vector<bool> on_gpu;
    std::vector<uint32_t> first_indexer = {0};
    json sampled = json::array();
    for (const auto& text : samples) {
        const json sample = json::parse(text);
        for (const auto& pair : sample.at("tokens")) tokens.at(pair[0].get<uint32_t>()) += pair[1].get<uint64_t>();
        for (const auto& device : sample.at("devices")) on_gpu.push_back(device.get<std::string>() != "cpu");
        first_indexer.push_back(static_cast<uint32_t>(on_gpu.size()));
        sampled.push_back({{"bytes", sample.at("bytes")}, {"documents", sample.at("documents")},
                           {"files", sample.at("files")}});
    }
    const double fraction = config.sampler.popular_token_fraction.value_or(automatic_popular_fraction(on_gpu));
    const CollectionAssignment global = assign_collections(tokens, on_gpu, fraction, config.sampler.max_popular);
    json popular = json::array();
    for (uint32_t c = 0; c < kCollections; ++c)
        if (global.popular[c]) popular.push_back(c);
    return {{"owner", global.owner},   {"popular", popular}, {"expected", global.expected_tokens_per_indexer},
            {"first_indexer", first_indexer}, {"tokens", tokens}, {"sampled", sampled},
            {"popular_token_fraction", fraction}};
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

}  // namespace

BuildReport run_partition_build(const PipelineConfig& config, const RunOptions& options, const NodeRegistry& registry) {
    const auto start = std::chrono::steady_clock::now();
    const double sync_wait_at_start = sync_wait_seconds();
    MpiSession& mpi = MpiSession::get();  // MPI_Init on the first call: counted in the build, reported apart
    const double mpi_start_seconds = seconds_since(start);
    const int rank = mpi.rank();
    const int ranks = mpi.size();
    const std::string who = "rank " + std::to_string(rank) + " of " + std::to_string(ranks);
    Messages messages(rank, ranks);
    // Configuration errors first, on every rank alike, before any message.
    const size_t regroup_at = regroup_position(config);
    const std::vector<std::string> devices = indexer_devices_of(config, index_spec(config));

    // 1. Rank 0 expands the input and takes the output (lock, temporary
    // directory), then tells every rank the file list and where parts go.
    std::optional<IndexWriter> writer;
    const auto plan_start = std::chrono::steady_clock::now();
    ClusterPlan cluster_plan = start_cluster_build(config, options, messages, who, writer);
    const double plan_seconds = seconds_since(plan_start);
    std::vector<InputFile> files = std::move(cluster_plan.files);
    const fs::path parts_dir = cluster_plan.parts_dir;
    const fs::path rank_dir = parts_dir / ("rank-" + std::to_string(rank));
    const auto part_dir = [&](int source) { return rank_dir / ("from-" + std::to_string(source)); };

    const bool by_size = config.cluster->assign_files == "size";
    const std::vector<FileRange> ranges = assign_file_ranges(files, static_cast<uint32_t>(ranks), by_size);
    const FileRange range = ranges[static_cast<size_t>(rank)];
    const bool parses = range.begin < range.end;
    const std::string range_text = parses ? "input files " + std::to_string(range.begin) + "-" +
                                                std::to_string(range.end - 1)
                                          : "no input files";

    // 2. Collection ownership over every rank's indexers: each rank samples
    // its own files, rank 0 decides, every rank learns it.
    const auto sampling_start = std::chrono::steady_clock::now();
    std::string sample_text;
    try {
        sample_text = sample_share(config, files_of_range(files, range), devices).dump();
    } catch (const std::exception& error) {
        sample_text = json{{"error", who + " (" + range_text + "): sampling failed: " + error.what()}}.dump();
    }
    const std::vector<std::string> samples = messages.gather(sample_text);
    std::string ownership_text;
    if (rank == 0) {
        std::string failures;
        for (const auto& text : samples) {
            const json sample = json::parse(text);
            if (sample.contains("error"))
                failures += (failures.empty() ? "" : "; ") + sample.at("error").get<std::string>();
        }
        ownership_text = failures.empty() ? decide_ownership(config, samples).dump() : json{{"error", failures}}.dump();
    }
    messages.broadcast(ownership_text);
    const json ownership = json::parse(ownership_text);
    if (ownership.contains("error")) {
        writer.reset();
        throw Error(ownership.at("error").get<std::string>());
    }
    const double sampling_seconds = seconds_since(sampling_start);
    const auto first_indexer = ownership.at("first_indexer").get<std::vector<uint32_t>>();
    const auto global_owner = ownership.at("owner").get<std::vector<uint32_t>>();
    const auto expected = ownership.at("expected").get<std::vector<uint64_t>>();
    const uint32_t mine_begin = first_indexer[static_cast<size_t>(rank)];
    const uint32_t mine_end = first_indexer[static_cast<size_t>(rank) + 1];
    ensure(mine_end - mine_begin == devices.size(), who + ": the ownership was made for another number of indexers");
    auto owner_rank = std::make_shared<std::vector<uint32_t>>(kCollections);
    CollectionAssignment local;
    local.owner.assign(kCollections, mine_end - mine_begin);  // owned by none of this rank's indexers
    local.popular.assign(kCollections, false);
    local.sampled_tokens = ownership.at("tokens").get<std::vector<uint64_t>>();
    local.expected_tokens_per_indexer.assign(expected.begin() + mine_begin, expected.begin() + mine_end);
    for (uint32_t c = 0; c < kCollections; ++c) {
        const uint32_t g = global_owner[c];
        (*owner_rank)[c] = static_cast<uint32_t>(std::upper_bound(first_indexer.begin(), first_indexer.end(), g) -
                                                 first_indexer.begin() - 1);
        if (g >= mine_begin && g < mine_end) local.owner[c] = g - mine_begin;
    }
    for (const auto& c : ownership.at("popular")) local.popular[c.get<uint32_t>()] = true;

    // 3. This rank's pipelines: its own files up to the distributor and its
    // indexers, and one per other rank indexing that rank's stream.
    PostingsExchange exchange(rank, ranks);
    auto credits = std::make_shared<ExchangeCredits>(config.cluster->exchange_credits.value_or(config.memory.tokens));
    NodeRegistry cluster_registry;
    for (const auto& kind : registry.kinds()) cluster_registry.add(kind.name, kind.description, kind.factory);
    cluster_registry.add("cluster_distribute", "a partition cluster build's distributor (made by the build itself)",
                         [&exchange, credits, owner_rank](NodeOptions& node_options, RunState& state) {
                             return make_distribute_node(node_options, state, exchange, credits, owner_rank);
                         });
    cluster_registry.add("cluster_receive", "another rank's postings in a partition cluster build (made by the build)",
                         [&exchange](NodeOptions& node_options, RunState& state) {
                             const auto source = static_cast<int>(node_options.unsigned_integer("source", 0));
                             return make_receive_node(node_options, state, exchange.channel(source), source);
                         });

    std::stop_source stop;
    const std::stop_callback forward(options.stop, [&stop] { stop.request_stop(); });
    std::vector<Share> shares;
    for (int source = 0; source < ranks; ++source) {
        if (source == rank && !parses) continue;
        PipelineConfig share_config = config;
        share_config.cluster.reset();
        share_config.output = part_dir(source);
        if (source != rank || rank != 0) share_config.progress = "off";  // one progress line per job
        if (source == rank && ranks == 1) {
            // Nothing leaves a lone rank: no distributor, the single build's graph.
        } else if (source == rank) {
            share_config.nodes.insert(share_config.nodes.begin() + static_cast<std::ptrdiff_t>(regroup_at) + 1,
                                      NodeSpec{.kind = "cluster_distribute", .name = "distribute",
                                               .pointer = "/cluster", .options = {{"kind", "cluster_distribute"}}});
        } else {
            std::vector<NodeSpec> nodes = {NodeSpec{.kind = "cluster_receive", .name = "receive", .pointer = "/cluster",
                                                    .options = {{"kind", "cluster_receive"}, {"source", source}}}};
            nodes.insert(nodes.end(), config.nodes.begin() + static_cast<std::ptrdiff_t>(regroup_at) + 1,
                         config.nodes.end());
            share_config.nodes = std::move(nodes);
        }
        RunOptions share_options;
        share_options.stop = stop.get_token();
        share_options.notice = options.notice;
        share_options.files = files_of_range(files, ranges[static_cast<size_t>(source)]);
        share_options.assignment = local;
        share_options.durable_output = false;  // its runs are adopted and synced, the rest rewritten
        share_options.keep_dictionary = true;  // merged in memory, not read back
        Share& share = shares.emplace_back();
        share.source = source;
        share.future = std::async(std::launch::async, [share_config = std::move(share_config),
                                                       share_options = std::move(share_options), &cluster_registry] {
            return Pipeline(share_config).run(share_options, cluster_registry);
        });
    }
    if (!parses) {
        // Nothing to parse: every other rank still gets this stream's end.
        RegroupedBatch end;
        end.end_of_input = true;
        for (int d = 0; d < ranks; ++d) {
            if (d == rank) continue;
            std::string message;
            postings_wire::encode_batch(end, *owner_rank, static_cast<uint32_t>(d), config.analysis.positions, message);
            exchange.post_batch(d, std::move(message), {});
        }
        exchange.finish_local(true);
    }

    // The main thread moves the messages and watches the pipelines: the
    // first failure here, or a peer's, stops every pipeline of this rank.
    bool stopping = false;
    bool stopped_by_peer = false;
    int failed_peer = -1;
    std::string local_error;
    const auto stop_all = [&] {
        if (stopping) return;
        stopping = true;
        stop.request_stop();
        for (int s = 0; s < ranks; ++s) exchange.channel(s).close();
    };
    const auto step = [&] {
        if (options.stop.stop_requested()) stop_all();
        bool all_done = true;
        for (auto& share : shares) {
            if (share.done) continue;
            if (share.future.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
                all_done = false;
                continue;
            }
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
            if (share.source == rank) exchange.finish_local(!share.failure);
            if (share.failure && !share.interrupted && !stopping) {
                local_error = share.source == rank
                                  ? who + " (" + range_text + "): " + share.error
                                  : who + " (indexing the postings of rank " + std::to_string(share.source) +
                                        "): " + share.error;
                std::fprintf(stderr, "invidx-run: %s\n", local_error.c_str());
            }
            if (share.failure) stop_all();
        }
        return all_done;
    };
    const auto on_peer_failed = [&](int source) {
        if (stopping) return;
        stopped_by_peer = true;
        failed_peer = source;
        std::fprintf(stderr, "invidx-run: %s: stopped early: rank %d failed\n", who.c_str(), source);
        stop_all();
    };
    try {
        exchange.run(step, on_peer_failed);
    } catch (const std::exception& error) {
        if (local_error.empty()) local_error = who + ": " + error.what();
    }
    const ExchangeFigures exchanged = exchange.figures();

    // 4. Every rank's figures to rank 0, which decides: the failures, or
    // each source's first docid and each rank's run.
    const Share* own = nullptr;
    uint64_t part_terms = 0;
    double index_busy_seconds = 0;
    for (const auto& share : shares) {
        if (share.source == rank) own = &share;
        index_busy_seconds += busy_of_kind(share.report.value("nodes", json::array()), "index");
        part_terms += share.report.value("terms", uint64_t{0});
    }
    const json own_report = own ? own->report : json::object();
    // How many run files this rank's parts hold: rank 0 numbers every
    // rank's runs from these counts.
    uint32_t part_runs = 0;
    const auto source_parts = [&](const json& first_docids) {
        std::vector<SourcePart> parts;
        for (auto& share : shares)
            parts.push_back(SourcePart{.directory = part_dir(share.source),
                                       .first_docid = first_docids.is_null() ? 0
                                                          : first_docids.at(static_cast<size_t>(share.source)).get<uint64_t>(),
                                       .dictionary = &share.dictionary});
        return parts;
    };
    if (local_error.empty() && !stopped_by_peer) {
        try {
            part_runs = count_part_runs(source_parts(json()));
        } catch (const std::exception& error) {
            local_error = who + ": reading its parts failed: " + error.what();
        }
    }
    const bool interrupted_here = std::any_of(shares.begin(), shares.end(), [](const Share& s) { return s.interrupted; }) &&
                                  options.stop.stop_requested();
    json figures = share_figures(rank, range, files, own_report);
    figures.update({{"part_terms", part_terms},
                    {"part_runs", part_runs},
                    {"build_seconds", seconds_since(start)},
                    {"mpi_start_seconds", mpi_start_seconds},
                    {"plan_seconds", plan_seconds},
                    {"sampling_seconds", sampling_seconds},
                    {"sync_wait_seconds", sync_wait_seconds() - sync_wait_at_start},
                    {"distribute_busy_seconds",
                     busy_of_kind(own_report.value("nodes", json::array()), "cluster_distribute")},
                    {"index_busy_seconds", index_busy_seconds},
                    {"exchange_busy_seconds", exchanged.busy_seconds},
                    {"postings_bytes_sent", exchanged.batch_bytes_sent},
                    {"postings_bytes_received", exchanged.batch_bytes_received},
                    {"postings_messages_sent", exchanged.batch_messages_sent},
                    {"postings_messages_received", exchanged.batch_messages_received},
                    {"peak_unacknowledged_messages", exchanged.peak_unacknowledged},
                    {"exchange_credits", credits->figures().capacity},
                    {"peak_exchange_credits_in_use", credits->figures().peak_in_use},
                    {"batches_waiting_for_credit", credits->figures().waited},
                    {"ok", local_error.empty() && !stopped_by_peer && !interrupted_here},
                    {"stopped_by_peer", stopped_by_peer},
                    {"interrupted", interrupted_here},
                    {"error", local_error}});
    const auto wait_start = std::chrono::steady_clock::now();
    MPI_Barrier(MPI_COMM_WORLD);
    figures["wait_seconds"] = seconds_since(wait_start);
    figures["bytes_sent"] = exchanged.bytes_sent + messages.sent();
    figures["bytes_received"] = exchanged.bytes_received + messages.received();
    figures["peak_rss_bytes"] = peak_rss_bytes();
    const std::vector<std::string> all_figures = messages.gather(figures.dump());

    json per_rank = json::array();
    json decision;
    const bool parallel_join = config.cluster->join == "parallel";
    // Serial join: rank 0 opens every source's own part (its documents)
    // before any rank hears the decision: once they have, they move the
    // parts' run files away, and an open reader keeps the documents mapped.
    std::vector<std::unique_ptr<IndexReader>> document_parts(static_cast<size_t>(ranks));
    if (rank == 0) {
        std::string failures;
        bool interrupted = false;
        json first_docids = json::array(), first_runs = json::array();
        uint64_t documents = 0;
        uint64_t runs = 0;
        for (const auto& text : all_figures) {
            per_rank.push_back(json::parse(text));
            const json& r = per_rank.back();
            interrupted = interrupted || r.at("interrupted").get<bool>();
            if (!r.at("error").get<std::string>().empty())
                failures += (failures.empty() ? "" : "; ") + r.at("error").get<std::string>();
            first_docids.push_back(documents);
            documents += r.at("documents").get<uint64_t>();
            // Rank by rank, and on each rank in (source, run) order: the
            // lists of a term, which one rank owns, follow increasing docids.
            first_runs.push_back(runs);
            runs += r.at("part_runs").get<uint32_t>();
        }
        if (failures.empty() && runs > UINT32_MAX) failures = "the index would hold more than 2^32 runs";
        for (int s = 0; s < ranks && failures.empty() && !parallel_join; ++s) {
            if (ranges[static_cast<size_t>(s)].begin == ranges[static_cast<size_t>(s)].end) continue;
            try {
                document_parts[static_cast<size_t>(s)] = std::make_unique<IndexReader>(
                    parts_dir / ("rank-" + std::to_string(s)) / ("from-" + std::to_string(s)));
            } catch (const std::exception& error) {
                failures = "rank 0 of " + std::to_string(ranks) + ": opening the documents of rank " + std::to_string(s) +
                           " failed: " + error.what();
            }
        }
        if (failures.empty() && interrupted) failures = "interrupted";
        if (failures.empty() && documents > uint64_t{UINT32_MAX} + 1)
            failures = "the index would hold more than 2^32 documents";
        decision = {{"ok", failures.empty()}, {"error", failures}, {"interrupted", interrupted},
                    {"first_docids", first_docids}, {"first_runs", first_runs}};
    }
    std::string decision_text = rank == 0 ? decision.dump() : std::string();
    messages.broadcast(decision_text);
    decision = json::parse(decision_text);
    const auto fail_everywhere = [&](const std::string& error) -> BuildReport {
        if (rank == 0) writer.reset();  // every rank has stopped writing into it
        if (decision.value("interrupted", false) && options.stop.stop_requested()) throw Interrupted();
        if (rank == 0 || !local_error.empty()) throw Error(error);
        throw Error(who + ": stopped because the build failed elsewhere: " + error);
    };
    if (!decision.at("ok").get<bool>()) return fail_everywhere(decision.at("error").get<std::string>());

    // 5. Each rank moves its per-source parts' runs into rank 0's temporary
    // directory as runs of the joined index, each with its source's first
    // docid as its base (no postings read or written again), and writes its
    // dictionary part beside its parts.
    const auto merge_start = std::chrono::steady_clock::now();
    json run_report = {{"rank", rank}, {"ok", true}};
    // Parallel join: each rank writes its own documents, so it opens its
    // own part before its run files move away (the reader keeps them mapped).
    std::unique_ptr<IndexReader> own_documents;
    if (parallel_join && parses) {
        try {
            own_documents = std::make_unique<IndexReader>(part_dir(rank));
        } catch (const std::exception& error) {
            run_report = {{"rank", rank}, {"ok", false},
                          {"error", who + ": opening its documents failed: " + std::string(error.what())}};
        }
    }
    std::vector<DictionaryTerm> owned_terms;
    uint64_t owned_postings = 0;
    if (part_runs > 0 && run_report.at("ok").get<bool>()) {
        try {
            OwnedTerms owned =
                adopt_source_parts(source_parts(decision.at("first_docids")),
                                   decision.at("first_runs").at(static_cast<size_t>(rank)).get<uint32_t>(),
                                   parts_dir.parent_path());
            json runs = json::array();
            // Rank 0 checks the dictionary's pointers only in a serial join.
            for (const auto& run : owned.runs) runs.push_back(written_run_to_json(run, !parallel_join));
            run_report["runs"] = runs;
            run_report["terms"] = owned.dictionary.size();
            if (parallel_join) {
                // This rank's terms point at its own runs only: checked here,
                // so that the ranks joining them need no other rank's runs.
                RunSlotPostings slots;
                for (const auto& run : owned.runs) slots[run.run] = run.slots;
                owned_postings = oneapi::tbb::parallel_reduce(
                    oneapi::tbb::blocked_range<size_t>(0, owned.dictionary.size(), 4096), uint64_t{0},
                    [&](const oneapi::tbb::blocked_range<size_t>& terms, uint64_t postings) {
                        for (size_t t = terms.begin(); t < terms.end(); ++t)
                            postings += checked_term_postings(owned.dictionary[t], slots);
                        return postings;
                    },
                    std::plus<>());
                owned_terms = std::move(owned.dictionary);
            } else {
                write_dictionary_part(rank_dir / "dictionary.part", owned.dictionary);
            }
        } catch (const std::exception& error) {
            run_report = {{"rank", rank}, {"ok", false},
                          {"error", who + ": adopting its runs failed: " + std::string(error.what())}};
        }
    }
    run_report["merge_seconds"] = seconds_since(merge_start);
    const std::vector<std::string> all_runs = messages.gather(run_report.dump());

    // 6. The dictionary parts and the documents joined: by every rank, each
    // its range of the terms and its own documents, or by rank 0 alone
    // (below). Rank 0 first learns every rank's runs and failures so far.
    const auto join_start = std::chrono::steady_clock::now();
    std::string failures;
    std::vector<WrittenRun> runs;
    if (rank == 0) {
        for (const auto& text : all_runs) {
            const json r = json::parse(text);
            json& figures_of = per_rank[static_cast<size_t>(r.at("rank").get<int>())];
            figures_of["merge_seconds"] = r.at("merge_seconds");
            if (!r.at("ok").get<bool>()) failures += (failures.empty() ? "" : "; ") + r.at("error").get<std::string>();
            if (!r.contains("runs")) continue;
            uint64_t postings_owned = 0;
            for (const auto& run : r.at("runs")) {
                runs.push_back(written_run_from_json(run));
                postings_owned += runs.back().postings;
            }
            figures_of["runs"] = r.at("runs").size();
            figures_of["terms_owned"] = r.at("terms");
            figures_of["postings_owned"] = postings_owned;
        }
    }
    const auto join_hook = [&](std::string_view join) -> std::function<void(int)> {
        if (!options.at_cluster_join) return {};
        return [&options, join](int joining) { options.at_cluster_join(joining, join); };
    };
    JoinedDictionary joined;
    if (parallel_join) {
        joined = join_dictionary(
            DictionaryJoin{.rank = rank, .ranks = ranks, .parts_dir = parts_dir,
                           .dictionary_path = parts_dir.parent_path() / layout::kDictionaryFile,
                           .owned = std::move(owned_terms), .owned_postings = owned_postings,
                           .error = rank == 0 ? failures : run_report.value("error", std::string()),
                           .at_join = join_hook("dictionary")},
            messages);
    }
    const double parallel_join_seconds = seconds_since(join_start);
    // Then the documents, every rank its own (after the dictionary's
    // failures, which it carries on).
    const auto documents_start = std::chrono::steady_clock::now();
    const fs::path joined_documents_path = parts_dir / layout::kDocumentsFile;
    JoinedDocuments joined_documents;
    if (parallel_join) {
        joined_documents = join_documents(
            DocumentsJoin{.rank = rank, .ranks = ranks, .part = own_documents.get(),
                          .first_file = static_cast<uint32_t>(range.begin), .documents_path = joined_documents_path,
                          .error = joined.error,
                          .also_sync = {parts_dir.parent_path() / layout::kDictionaryFile},
                          .at_join = join_hook("documents")},
            messages);
    }
    const double documents_join_seconds = seconds_since(documents_start);

    // 7. Rank 0 adopts the documents, the runs and the dictionary (or,
    // serial, appends the documents from each source's own part and joins
    // the dictionary parts alone), writes the report and publishes; every
    // rank learns the outcome, so all exit alike.
    json report;
    const ClusterOutcome outcome = finish_cluster_build(messages, ranks, [&] {
        json end_seconds = json::object();
        if (parallel_join) {
            end_seconds["dictionary_join_all_ranks"] = parallel_join_seconds;
            end_seconds["documents_join_all_ranks"] = documents_join_seconds;
            for (const auto& f : joined.figures) per_rank[static_cast<size_t>(f.at("rank").get<int>())]["join"] = f;
            for (const auto& f : joined_documents.figures)
                per_rank[static_cast<size_t>(f.at("rank").get<int>())]["documents_join"] = f;
            // The documents join carried the dictionary join's failures on.
            if (!joined_documents.error.empty()) throw Error(joined_documents.error);
        }
        if (!failures.empty()) throw Error(failures);
        auto step_start = std::chrono::steady_clock::now();
        const auto end_step = [&](const char* name) {
            end_seconds[name] = seconds_since(step_start);
            step_start = std::chrono::steady_clock::now();
        };
        uint64_t documents = 0;
        if (parallel_join) {
            writer->adopt_documents(joined_documents.written, joined_documents_path);
            documents = joined_documents.written.documents;
        } else {
            for (int s = 0; s < ranks; ++s) {
                const FileRange& share = ranges[static_cast<size_t>(s)];
                if (share.begin == share.end) continue;
                append_part_documents(*document_parts[static_cast<size_t>(s)], share.begin, *writer);
                documents += per_rank[static_cast<size_t>(s)].at("documents").get<uint64_t>();
            }
        }
        end_step("documents");
        uint64_t postings = 0;
        for (const auto& run : runs) writer->adopt_run(run), postings += run.postings;
        end_step("adopt_runs");
        uint64_t terms = 0;
        if (parallel_join) {
            writer->adopt_dictionary(joined.written);
            terms = joined.written.terms;
        } else {
            std::vector<DictionaryTerm> dictionary;
            for (int r = 0; r < ranks; ++r) {
                if (per_rank[static_cast<size_t>(r)].at("part_runs").get<uint32_t>() == 0) continue;
                auto part = read_dictionary_part(parts_dir / ("rank-" + std::to_string(r)) / "dictionary.part");
                dictionary.insert(dictionary.end(), std::make_move_iterator(part.begin()),
                                  std::make_move_iterator(part.end()));
            }
            terms = dictionary.size();
            end_step("dictionary_read");
            // Disjoint parts: write_dictionary sorts them and would refuse a
            // term that two ranks owned.
            writer->write_dictionary(std::move(dictionary));
        }
        end_step("dictionary");

        report = own_report.contains("nodes") ? own_report : json::object();
        if (!report.contains("nodes")) report["nodes"] = json::array();
        report["nodes_of_rank"] = own ? 0 : -1;
        json indexers = json::array();
        for (int r = 0; r < ranks; ++r)
            for (uint32_t g = first_indexer[static_cast<size_t>(r)]; g < first_indexer[static_cast<size_t>(r) + 1]; ++g)
                indexers.push_back({{"rank", r}, {"indexer", g - first_indexer[static_cast<size_t>(r)]},
                                    {"collections_owned", std::count(global_owner.begin(), global_owner.end(), g)},
                                    {"expected_tokens_from_sample", expected[g]}});
        // The parts are not part of the index: gone before the report
        // (which times it) and the manifest.
        document_parts.clear();
        own_documents.reset();
        fs::remove_all(parts_dir);
        end_step("remove_parts");
        // Rank 0's end, step by step (publishing, after report.json is
        // written, is left out): what the parallel join shortens.
        end_seconds["total"] = seconds_since(join_start);
        per_rank[0]["end_seconds"] = end_seconds;
        const uint64_t text_bytes = sum_over_ranks(per_rank, "text_bytes");
        const uint64_t postings_bytes = sum_over_ranks(per_rank, "postings_bytes_sent");
        report["cluster"] = {
            {"mode", "partition"},
            {"assign_files", config.cluster->assign_files},
            {"join", config.cluster->join},
            {"ownership", {{"indexers", indexers},
                           {"popular_collections", ownership.at("popular").size()},
                           {"popular_token_fraction", ownership.at("popular_token_fraction")},
                           {"sampled_per_rank", ownership.at("sampled")}}},
            {"postings_bytes_exchanged", postings_bytes},
            {"postings_bytes_per_input_gb", text_bytes ? postings_bytes / (text_bytes / 1e9) : 0.0}};
        report["stages"]["sampling"] = sampling_seconds;
        report["stages"]["cluster_merge_runs"] = largest_over_ranks(per_rank, "merge_seconds");
        report["peak_rss_bytes"] = peak_rss_bytes();
        report_and_publish(report, per_rank,
                           JoinedCounts{.input_files = files.size(), .documents = documents, .terms = terms,
                                        .postings = postings},
                           config, options, *writer, start, join_start);
    });
    if (!outcome.ok) {
        if (rank == 0) writer.reset();
        if (outcome.interrupted && options.stop.stop_requested()) throw Interrupted();
        if (rank == 0) throw Error(outcome.error);
        if (!joined_documents.error.empty()) throw Error(joined_documents.error);  // this rank's own failure
        throw Error(who + ": stopped because the build failed elsewhere: " + outcome.error);
    }
    if (rank == 0) return BuildReport{std::move(report)};
    return BuildReport{json{{"rank", rank}, {"ranks", ranks}, {"per_rank", json::array({figures})}}};
}

}  // namespace invidx
