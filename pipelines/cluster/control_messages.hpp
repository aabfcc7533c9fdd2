// The control messages of a cluster build: what its ranks tell each other
// besides postings (docs/FORMAT.md "Cluster builds"), one struct per kind.
// A failure is a kind of its own, so a rank learns that another failed from
// the kind of the message it receives, never from a field of another kind.
// The wire format is private to encode() and decode(), the only code that
// builds or reads it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/error.hpp"
#include "invidx/messages.hpp"
#include "store/checksum_spans.hpp"
#include "store/concatenate.hpp"
#include "store/index_writer.hpp"

namespace invidx {

// Rank 0 to every rank, first: the input files as rank 0 expanded them, the
// folder in rank 0's temporary directory where the ranks' parts go, and
// what each file weighs when the list is cut among the ranks
// (file_ranges.hpp), with the weight rank 0 gave a one-stream gzip file.
struct ClusterPlan {
    std::vector<InputFile> files;
    std::filesystem::path parts_dir;
    std::vector<uint64_t> file_weights;
    double stream_file_weight = 1.0;
};

// A rank to rank 0 (partition mode): its indexers' devices, and what the
// sampler found in its own files.
struct SampleMessage {
    std::vector<std::string> devices;  // "cpu", "gpu:0", ...
    // Per device entry: a GPU indexer the rank's GPU parsers feed on its
    // device (BuildPlan::fed_on_device); empty for none.
    std::vector<bool> fed_on_device;
    std::vector<uint64_t> tokens;      // kCollections entries: sampled tokens per collection
    uint64_t bytes = 0;
    uint64_t documents = 0;
    uint32_t files = 0;
};

// What one rank's sample looked at, for the report.
struct SampledShare {
    uint64_t bytes = 0;
    uint64_t documents = 0;
    uint32_t files = 0;
};

// Rank 0 to every rank (partition mode): each trie collection bound to one
// indexer among all ranks' indexers, numbered rank by rank, for the whole build.
struct OwnershipMessage {
    std::vector<uint32_t> owner;            // kCollections entries: the owning indexer
    std::vector<uint32_t> popular;          // the popular collections
    std::vector<uint64_t> expected_tokens;  // per indexer: the sampled tokens it got
    std::vector<uint32_t> first_indexer;    // ranks + 1 entries: rank r's are [first[r], first[r+1])
    std::vector<uint64_t> tokens;           // per collection: every rank's sample summed
    std::vector<SampledShare> sampled;      // per rank
    double popular_token_fraction = 0;
};

// A rank to rank 0 once its pipelines are done (partition mode): what rank
// 0 places the parts by, and every figure of the rank for the report's
// "per_rank".
struct FiguresMessage {
    uint64_t documents = 0;  // of its own files
    uint32_t part_runs = 0;  // run files its parts hold
    nlohmann::json figures = nlohmann::json::object();
};

// Rank 0 to every rank (partition mode): where the parts go in the joined
// index.
struct PlacementMessage {
    std::vector<uint64_t> first_docids;  // per source rank
    std::vector<uint32_t> first_runs;    // per rank: the number of its first run
};

// A rank to rank 0 (partition mode): the runs it moved into the joined
// index and the terms its dictionary part holds.
struct RunsMessage {
    bool adopted = false;  // false: its parts held no runs
    std::vector<WrittenRun> runs;
    bool with_slots = false;  // send each run's slots (rank 0 writes the dictionary itself)
    uint64_t terms = 0;
    double merge_seconds = 0;
};

// Rank 0 to every rank, last: the index is published.
struct FinishedMessage {};

// Any rank, in place of the message it owed: it failed, or was stopped.
struct FailureMessage {
    std::string error;             // empty where the rank was only interrupted
    bool interrupted = false;      // stopped by its caller (RunOptions::stop)
    // Files mode: it stopped because another rank told it to (not a
    // failure of its own), and it told every other rank to stop.
    bool stopped_by_peer = false;
    bool sent_stop = false;
};

// A rank to rank 0 (files mode) once its part index is built: what rank 0
// places the part by, and its figures for the report's "per_rank".
struct PartBuiltMessage {
    uint64_t documents = 0;
    uint64_t terms = 0;
    nlohmann::json figures = nlohmann::json::object();
};

// Rank 0 to every rank (files mode), before the verdict: how many ranks told
// the others to stop, so that each rank drains that many stop notices.
struct StopCountMessage {
    uint32_t senders = 0;
};

// Rank 0 to every rank (files mode): each rank's part in the joined index.
struct PartsPlacementMessage {
    std::vector<ConcatenatedPart> parts;  // per rank
};

// A rank to rank 0 at the end of a join in which every rank wrote its own
// byte ranges of one file: its figures, one count, and the checksum spans
// of what it wrote (pipelines/cluster/mpi/join_reports.hpp).
struct JoinReportMessage {
    nlohmann::json figures = nlohmann::json::object();
    uint64_t count = 0;
    std::vector<ChecksumSpan> spans;
};

using ControlMessage = std::variant<ClusterPlan, SampleMessage, OwnershipMessage, FiguresMessage, PlacementMessage,
                                    RunsMessage, FinishedMessage, FailureMessage, PartBuiltMessage, StopCountMessage,
                                    PartsPlacementMessage, JoinReportMessage>;

std::string encode(const ControlMessage& message);
// An invidx::Error for text that is not a control message.
ControlMessage decode(std::string_view text);

// "plan", "sample", ..., "failure".
std::string_view kind_name(const ControlMessage& message);

// `message` as an Expected; an Error naming both kinds where it is another
// (the ranks out of step). A failure is for the caller to look at first.
template <class Expected>
Expected expect(ControlMessage message) {
    if (auto* expected = std::get_if<Expected>(&message)) return std::move(*expected);
    throw Error("cluster control message: expected \"" + std::string(kind_name(ControlMessage(Expected{}))) +
                "\", got \"" + std::string(kind_name(message)) + "\"");
}

}  // namespace invidx
