#include "pipelines/cluster/mpi/cluster_build.hpp"

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <future>
#include <stop_token>
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "devices/gpu_devices.hpp"
#include "graph/resource_usage.hpp"
#include "graph/seconds_since.hpp"
#include "invidx/error.hpp"
#include "pipelines/cluster/mpi/cluster_finish.hpp"
#include "pipelines/cluster/mpi/cluster_start.hpp"
#include "pipelines/cluster/file_ranges.hpp"
#include "pipelines/cluster/file_work.hpp"
#include "pipelines/resolve_plan.hpp"
#include "pipelines/cluster/mpi/mpi_session.hpp"
#include "pipelines/cluster/mpi/partition_build.hpp"
#include "pipelines/cluster/rank_figures.hpp"
#include "pipelines/cluster/written_run_json.hpp"
#include "store/concatenate.hpp"
#include "store/index_reader.hpp"
#include "store/index_writer.hpp"

namespace invidx {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A rank whose share fails tells every other rank at once, so they stop
// their builds instead of finishing work that will be thrown away. Each
// rank posts one receive for such a notice before building; the main thread
// polls it while the build runs on another thread (only the main thread
// calls MPI). After the outcome is known every notice sent is received (each
// rank learns how many were sent), so none is left pending at MPI_Finalize.
class StopNotices {
public:
    static constexpr int kTag = 0x1d57;

    StopNotices(int rank, int size) : rank_(rank), size_(size) {
        MPI_Irecv(&incoming_, 1, MPI_INT, MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &receive_);
    }

    // True once another rank's notice has arrived.
    bool arrived() {
        if (!arrived_) {
            int done = 0;
            MPI_Status status;
            MPI_Test(&receive_, &done, &status);
            if (done) arrived_ = true, from_ = status.MPI_SOURCE;
        }
        return arrived_;
    }
    int from() const { return from_; }

    void send_to_all() {
        sent_ = true;
        for (int r = 0; r < size_; ++r) {
            if (r == rank_) continue;
            sends_.emplace_back();
            MPI_Isend(&outgoing_, 1, MPI_INT, r, kTag, MPI_COMM_WORLD, &sends_.back());
        }
    }
    bool sent() const { return sent_; }

    // `senders`: how many ranks sent notices (the outcome says).
    void drain(int senders) {
        if (!sends_.empty()) MPI_Waitall(static_cast<int>(sends_.size()), sends_.data(), MPI_STATUSES_IGNORE);
        int expected = senders - (sent_ ? 1 : 0);
        if (expected > 0) {
            if (!arrived_) MPI_Wait(&receive_, MPI_STATUS_IGNORE);
            for (--expected; expected > 0; --expected) {
                int ignored = 0;
                MPI_Recv(&ignored, 1, MPI_INT, MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        } else if (!arrived_) {
            MPI_Cancel(&receive_);
            MPI_Wait(&receive_, MPI_STATUS_IGNORE);
        }
    }

private:
    int rank_;
    int size_;
    int incoming_ = 0;
    int outgoing_ = 1;
    MPI_Request receive_ = MPI_REQUEST_NULL;
    std::vector<MPI_Request> sends_;
    bool arrived_ = false;
    bool sent_ = false;
    int from_ = -1;
};

// What a rank tells rank 0 about its share of the build.
json rank_figures(int rank, FileRange range, const std::vector<InputFile>& files, const json& part_report) {
    json figures = share_figures(rank, range, files, part_report);
    figures["terms"] = part_report.value("terms", uint64_t{0});
    figures["postings"] = part_report.value("postings", uint64_t{0});
    figures["build_seconds"] = part_report.value("total_seconds", 0.0);
    figures["index_busy_seconds"] = busy_of_kind(part_report.value("nodes", json::array()), "index");
    figures["peak_rss_bytes"] = peak_rss_bytes();
    return figures;
}

// The files mode: every rank indexes its files alone into a part index,
// which rank 0 joins.
BuildReport run_files_build(const PipelineConfig& config, const RunOptions& options, const BuildHooks& hooks,
                            const NodeRegistry& registry) {
    const auto start = std::chrono::steady_clock::now();
    // CUDA starts (listing the GPUs: 0.1-0.2 s where there are some) while
    // MPI does; the part build's plan lists them again at no cost.
    const std::future<GpuInventory> gpus_listed = std::async(std::launch::async, list_gpus);
    MpiSession& mpi = MpiSession::get();
    const int rank = mpi.rank();
    const int ranks = mpi.size();
    const std::string who = "rank " + std::to_string(rank) + " of " + std::to_string(ranks);
    Messages messages(rank, ranks);

    // A one-stream gzip file's weight in cutting the list ("work"), from the
    // plan each rank's part build will resolve: on every rank, so that a
    // configuration error stops every rank alike; rank 0's is used.
    const double stream_weight = config.cluster->assign_files == FileAssignment::by_work
                                     ? stream_file_weight(config, resolve_build_plan(config, registry, this_machine()))
                                     : 1.0;

    // 1. Rank 0 expands the input and takes the output (lock, temporary
    // directory, leftovers of killed builds), weighs the files, then tells
    // every rank the file list, the weights and where the parts go. Nothing
    // starts before all know.
    std::optional<IndexWriter> writer;
    ClusterPlan cluster_plan = start_cluster_build(config, options, hooks, messages, who, stream_weight, writer);
    std::vector<InputFile> files = std::move(cluster_plan.files);
    const fs::path parts_dir = cluster_plan.parts_dir;

    // 2. This rank's contiguous share of the sorted files, indexed by the
    // single-node pipeline into a part index with docids from 0.
    const std::vector<FileRange> ranges = assign_file_ranges(cluster_plan.file_weights, static_cast<uint32_t>(ranks));
    const FileRange range = ranges[static_cast<size_t>(rank)];
    const fs::path part_dir = parts_dir / ("rank-" + std::to_string(rank));
    json part_report = json::object();
    std::exception_ptr local_failure;
    std::string local_error;
    StopNotices notices(rank, ranks);
    bool stopped_by_peer = false;
    if (range.begin < range.end) {
        // The build runs on a thread of its own so that this one can watch
        // for other ranks' failures meanwhile; the caller's stop request
        // still reaches it.
        std::stop_source stop;
        const std::stop_callback forward(options.stop, [&stop] { stop.request_stop(); });
        PipelineConfig part_config = config;
        part_config.cluster.reset();
        part_config.output = part_dir;
        if (rank != 0) part_config.progress = ProgressMode::off;  // one progress line per job, rank 0's
        RunOptions part_options;
        part_options.stop = stop.get_token();
        part_options.notice = options.notice;
        BuildHooks part_hooks;
        part_hooks.files = files_of_range(files, range);
        part_hooks.durable_output = false;  // read and rewritten by the join
        part_hooks.check_duplicate_names = false;  // the joined index is checked whole
        auto build = std::async(std::launch::async, [&] {
            return run_pipeline(part_config, part_options, part_hooks, registry).json;
        });
        while (build.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready) {
            if (!stopped_by_peer && notices.arrived() && !options.stop.stop_requested()) {
                stopped_by_peer = true;
                stop.request_stop();
                std::fprintf(stderr, "invidx-run: %s: stopped early: rank %d failed\n", who.c_str(), notices.from());
            }
        }
        try {
            part_report = build.get();
        } catch (const std::exception& error) {
            if (stopped_by_peer) {
                local_error = "stopped because rank " + std::to_string(notices.from()) + " failed";
            } else {
                local_failure = std::current_exception();
                local_error = error.what();
                std::fprintf(stderr, "invidx-run: %s (input files %u-%u): %s\n", who.c_str(), range.begin,
                             range.end - 1, local_error.c_str());
                notices.send_to_all();
            }
        }
    }
    json figures = rank_figures(rank, range, files, part_report);
    figures["ok"] = !local_failure && !stopped_by_peer;
    figures["stopped_by_peer"] = stopped_by_peer;
    figures["sent_stop"] = notices.sent();
    figures["error"] = local_error;

    // 3. Every rank reports to rank 0 once its share is done (or failed): the
    // build goes on only if all succeeded, so no rank waits for one that died.
    const auto wait_start = std::chrono::steady_clock::now();
    MPI_Barrier(MPI_COMM_WORLD);
    figures["wait_seconds"] = seconds_since(wait_start);
    figures["bytes_sent"] = messages.sent();
    figures["bytes_received"] = messages.received();
    ControlMessage share_done = PartBuiltMessage{.documents = figures.at("documents").get<uint64_t>(),
                                                 .terms = figures.at("terms").get<uint64_t>(),
                                                 .figures = figures};
    if (local_failure || stopped_by_peer)
        share_done = FailureMessage{.error = local_error, .interrupted = false, .stopped_by_peer = stopped_by_peer,
                                    .sent_stop = notices.sent()};
    const std::vector<ControlMessage> shares = messages.gather(share_done);

    // Rank 0 decides: the failures, or every part's place in the joined
    // index (docid base = documents of the ranks before: an exclusive
    // prefix sum). Every rank learns how many ranks sent
    // stop notices (to drain them), then the verdict.
    json per_rank = json::array();
    std::optional<ControlMessage> verdict;
    uint32_t stop_senders = 0;
    if (rank == 0) {
        std::string failures;
        std::vector<uint64_t> documents;
        for (size_t r = 0; r < shares.size(); ++r) {
            if (const auto* failure = std::get_if<FailureMessage>(&shares[r])) {
                if (failure->sent_stop) ++stop_senders;
                if (failure->stopped_by_peer) continue;
                const FileRange& share = ranges[r];
                failures += (failures.empty() ? "" : "; ") + std::string("rank ") + std::to_string(r) + " of " +
                            std::to_string(ranks) + " (input files " + std::to_string(share.begin) + "-" +
                            std::to_string(share.end - 1) + "): " + failure->error;
                continue;
            }
            const auto built = expect<PartBuiltMessage>(shares[r]);
            per_rank.push_back(built.figures);
            documents.push_back(built.documents);
        }
        if (!failures.empty())
            verdict = FailureMessage{.error = failures};
        else {
            // Refused (over 2^32 documents) as a verdict every rank hears, not
            // an exception on rank 0 alone that would leave the others waiting.
            try {
                verdict = PartsPlacementMessage{.parts = plan_parts(documents)};
            } catch (const std::exception& error) {
                verdict = FailureMessage{.error = error.what()};
            }
        }
    }
    stop_senders = expect<StopCountMessage>(
                       messages.broadcast(rank == 0 ? std::optional<ControlMessage>(StopCountMessage{stop_senders})
                                                    : std::nullopt))
                       .senders;
    notices.drain(static_cast<int>(stop_senders));
    const ControlMessage decision = messages.broadcast(verdict);
    const auto fail_everywhere = [&](const std::string& error, bool failed_here) -> BuildReport {
        if (rank == 0) writer.reset();  // every rank has stopped writing into it
        if (local_failure) {
            try {
                std::rethrow_exception(local_failure);
            } catch (const Interrupted&) {
                throw;
            } catch (...) {
            }
        }
        if (rank == 0 || failed_here) throw Error(error);
        throw Error(who + ": stopped because the build failed elsewhere: " + error);
    };
    if (const auto* failure = std::get_if<FailureMessage>(&decision))
        return fail_everywhere(failure->error, bool(local_failure));
    const std::vector<ConcatenatedPart> placement = expect<PartsPlacementMessage>(decision).parts;

    // 4. Rank 0 joins the parts as they are: every part's run files moved
    // into the joined index in (rank, run) order, each with its part's
    // first docid as its base (no posting read or rewritten: docs/FORMAT.md
    // "Cluster builds"), the parts' dictionaries merged (a term's lists in
    // rank order, df and cf summed), their documents appended; then the
    // report, and the index published. Every rank learns the outcome, so
    // all exit alike.
    json report;
    const ClusterOutcome outcome = finish_cluster_build(messages, ranks, [&] {
        const auto join_start = std::chrono::steady_clock::now();
        std::vector<SourcePart> sources;
        std::vector<std::unique_ptr<IndexReader>> documents;  // opened before their parts' runs move
        std::vector<uint32_t> first_files;
        std::vector<int> part_ranks;
        for (int r = 0; r < ranks; ++r) {
            const FileRange& share = ranges[static_cast<size_t>(r)];
            if (share.begin == share.end) continue;
            const fs::path directory = parts_dir / ("rank-" + std::to_string(r));
            const uint64_t first_docid = placement.at(static_cast<size_t>(r)).first_docid;
            sources.push_back(SourcePart{.directory = directory, .first_docid = first_docid});
            documents.push_back(std::make_unique<IndexReader>(directory));
            // Its runs' base comes from what the rank reported: a part that
            // holds other documents would shift every docid after it.
            ensure(documents.back()->num_documents() == placement.at(static_cast<size_t>(r)).documents,
                   "the part of rank " + std::to_string(r) + " (" + directory.string() + ") holds " +
                       std::to_string(documents.back()->num_documents()) + " documents, its rank reported " +
                       std::to_string(placement.at(static_cast<size_t>(r)).documents));
            first_files.push_back(share.begin);
            part_ranks.push_back(r);
            per_rank[static_cast<size_t>(r)]["first_docid"] = first_docid;
        }
        // The first part's report gives the stage and node figures (its
        // rank's); the totals are the whole build's.
        report = part_report.contains("nodes") ? part_report : json::object();
        if (!sources.empty() && !report.contains("nodes")) {
            std::ifstream in(sources.front().directory / "report.json");
            if (in) report = json::parse(in, nullptr, false);
            if (report.is_discarded()) report = json::object();
        }
        if (!report.contains("nodes")) report["nodes"] = json::array();
        report["nodes_of_rank"] = part_ranks.empty() ? -1 : part_ranks.front();
        // Rank 0's join, step by step, for the report.
        json join_seconds = json::object();
        auto step_start = std::chrono::steady_clock::now();
        const auto step_end = [&](const char* name) {
            join_seconds[name] = seconds_since(step_start);
            step_start = std::chrono::steady_clock::now();
        };
        OwnedTerms joined = adopt_source_parts(sources, 0, parts_dir.parent_path());
        step_end("dictionaries_merged_runs_moved");
        JoinedCounts counts{.input_files = files.size(), .terms = joined.dictionary.size()};
        for (size_t p = 0; p < documents.size(); ++p) {
            append_part_documents(*documents[p], first_files[p], *writer);
            counts.documents += documents[p]->num_documents();
        }
        step_end("documents");
        for (const WrittenRun& run : joined.runs) writer->adopt_run(run), counts.postings += run.postings;
        writer->write_dictionary(std::move(joined.dictionary));
        step_end("dictionary");
        // The parts are not part of the index: gone before the report and
        // the manifest are written.
        documents.clear();
        fs::remove_all(parts_dir);
        step_end("remove_parts");
        report["cluster"] = {{"mode", "files"}, {"assign_files", mode_name(config.cluster->assign_files)},
                             {"stream_file_weight", cluster_plan.stream_file_weight},
                             {"join", "each rank's part's runs moved in with their docid bases, rank 0 merges the "
                                      "dictionaries and appends the documents"},
                             {"join_seconds", join_seconds}};
        report_and_publish(report, per_rank, counts, config, options, *writer, start, join_start);
    });
    if (!outcome.ok) {
        // Rank 0 stopped by its caller ends as Interrupted, as a stopped share does.
        if (rank == 0 && outcome.interrupted) local_failure = std::make_exception_ptr(Interrupted());
        return fail_everywhere(outcome.error, false);
    }
    if (rank == 0) return BuildReport{std::move(report)};
    figures["rank"] = rank;
    json own = {{"rank", rank}, {"ranks", ranks}, {"per_rank", json::array({figures})}};
    return BuildReport{std::move(own)};
}

}  // namespace

BuildReport run_cluster_build(const PipelineConfig& config, const RunOptions& options, const BuildHooks& hooks,
                              const NodeRegistry& registry) {
    if (config.cluster->mode == ClusterMode::files) return run_files_build(config, options, hooks, registry);
    return run_partition_build(config, options, hooks, registry);
}

}  // namespace invidx
