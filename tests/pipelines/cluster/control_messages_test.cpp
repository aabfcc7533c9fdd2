// A cluster build's control messages: every kind reads back as it was
// written, a failure is a kind of its own, and text that is not a control
// message, or a message of another kind than expected, is an error naming it.
#include <doctest/doctest.h>

#include <string>

#include "invidx/collections.hpp"
#include "invidx/error.hpp"
#include "pipelines/cluster/control_messages.hpp"

using namespace invidx;

namespace {

template <class Kind>
Kind round_trip(const Kind& message) {
    return expect<Kind>(decode(encode(message)));
}

}  // namespace

TEST_CASE("control messages: every kind reads back as it was written") {
    const ClusterPlan plan = round_trip(ClusterPlan{
        .files = {InputFile{.ordinal = 0, .path = "/in/a.warc.gz", .name = "a.warc.gz", .format = "warc", .size_bytes = 7}},
        .parts_dir = "/out.tmp-1/cluster-parts",
        .file_weights = {9},
        .stream_file_weight = 1.3});
    REQUIRE(plan.files.size() == 1);
    CHECK(plan.files[0].path == "/in/a.warc.gz");
    CHECK(plan.files[0].size_bytes == 7);
    CHECK(plan.parts_dir == "/out.tmp-1/cluster-parts");
    CHECK(plan.file_weights == std::vector<uint64_t>{9});
    CHECK(plan.stream_file_weight == 1.3);
    // Weights that are not one a file: the ranks would cut the list differently.
    CHECK_THROWS_WITH_AS(decode(encode(ClusterPlan{.files = plan.files, .parts_dir = "/p", .file_weights = {}})),
                         doctest::Contains("file weights"), Error);

    SampleMessage sample{.devices = {"cpu", "gpu:0"}, .fed_on_device = {false, true},
                         .tokens = std::vector<uint64_t>(kCollections, 0), .bytes = 100, .documents = 3, .files = 2};
    sample.tokens[5] = 40;
    sample.tokens[kCollections - 1] = 2;
    const SampleMessage sample_read = round_trip(sample);
    CHECK(sample_read.devices == sample.devices);
    CHECK(sample_read.fed_on_device == std::vector<bool>{false, true});
    CHECK(sample_read.tokens == sample.tokens);
    CHECK(sample_read.bytes == 100);
    CHECK(sample_read.documents == 3);
    CHECK(sample_read.files == 2);

    OwnershipMessage ownership;
    ownership.owner = {0, 1, 2};
    ownership.popular = {1};
    ownership.expected_tokens = {10, 20, 30};
    ownership.first_indexer = {0, 2, 3};
    ownership.tokens = {5, 6, 7};
    ownership.sampled = {SampledShare{.bytes = 1, .documents = 2, .files = 3}};
    ownership.popular_token_fraction = 0.3;
    const OwnershipMessage ownership_read = round_trip(ownership);
    CHECK(ownership_read.owner == ownership.owner);
    CHECK(ownership_read.popular == ownership.popular);
    CHECK(ownership_read.expected_tokens == ownership.expected_tokens);
    CHECK(ownership_read.first_indexer == ownership.first_indexer);
    CHECK(ownership_read.tokens == ownership.tokens);
    REQUIRE(ownership_read.sampled.size() == 1);
    CHECK(ownership_read.sampled[0].files == 3);
    CHECK(ownership_read.popular_token_fraction == 0.3);

    const FiguresMessage figures =
        round_trip(FiguresMessage{.documents = 9, .part_runs = 2, .figures = {{"rank", 1}, {"error", ""}}});
    CHECK(figures.documents == 9);
    CHECK(figures.part_runs == 2);
    CHECK(figures.figures == nlohmann::json{{"rank", 1}, {"error", ""}});

    const PlacementMessage placement = round_trip(PlacementMessage{.first_docids = {0, 9}, .first_runs = {0, 2}});
    CHECK(placement.first_docids == std::vector<uint64_t>{0, 9});
    CHECK(placement.first_runs == std::vector<uint32_t>{0, 2});

    RunsMessage runs;
    runs.adopted = true;
    runs.with_slots = true;
    runs.runs = {WrittenRun{.run = 4, .path = "runs/run-000004.post", .size_bytes = 64, .crc32 = 1, .block_crcs = {1},
                            .slots = {{0, {3, 4}}}, .postings = 7, .docid_base = 9}};
    runs.terms = 5;
    runs.merge_seconds = 0.5;
    const RunsMessage runs_read = round_trip(runs);
    CHECK(runs_read.adopted);
    CHECK(runs_read.with_slots);
    REQUIRE(runs_read.runs.size() == 1);
    CHECK(runs_read.runs[0].slots == runs.runs[0].slots);
    CHECK(runs_read.runs[0].docid_base == 9);
    CHECK(runs_read.terms == 5);
    runs.with_slots = false;
    const RunsMessage without_slots = round_trip(runs);
    CHECK_FALSE(without_slots.with_slots);
    CHECK(without_slots.runs[0].slots.empty());

    round_trip(FinishedMessage{});

    // The files mode's kinds.
    const PartBuiltMessage built =
        round_trip(PartBuiltMessage{.documents = 12, .terms = 40, .figures = {{"rank", 2}, {"documents", 12}}});
    CHECK(built.documents == 12);
    CHECK(built.terms == 40);
    CHECK(built.figures == nlohmann::json{{"rank", 2}, {"documents", 12}});
    CHECK(round_trip(StopCountMessage{.senders = 3}).senders == 3);
    const PartsPlacementMessage parts = round_trip(PartsPlacementMessage{
        .parts = {ConcatenatedPart{.first_docid = 0, .documents = 5}, ConcatenatedPart{.first_docid = 5, .documents = 0},
                  ConcatenatedPart{.first_docid = 5, .documents = 7}}});
    REQUIRE(parts.parts.size() == 3);
    CHECK(parts.parts[2].first_docid == 5);
    CHECK(parts.parts[2].documents == 7);
    CHECK(parts.parts[1].documents == 0);

    const JoinReportMessage join = round_trip(JoinReportMessage{
        .figures = {{"write_seconds", 0.5}}, .count = 77, .spans = {{0, 4096, 0xdeadbeef}, {4096, 10, 7}}});
    CHECK(join.figures == nlohmann::json{{"write_seconds", 0.5}});
    CHECK(join.count == 77);
    REQUIRE(join.spans.size() == 2);
    CHECK(join.spans[0].crc == 0xdeadbeef);
    CHECK(join.spans[1].offset == 4096);
    CHECK(join.spans[1].length == 10);
}

TEST_CASE("control messages: a failure is a kind of its own") {
    const ControlMessage message = decode(encode(FailureMessage{.error = "rank 1 of 2: bad gzip", .interrupted = true}));
    CHECK(kind_name(message) == "failure");
    const auto* failure = std::get_if<FailureMessage>(&message);
    REQUIRE(failure != nullptr);
    CHECK(failure->error == "rank 1 of 2: bad gzip");
    CHECK(failure->interrupted);
    CHECK_FALSE(failure->stopped_by_peer);
    const auto stopped = std::get<FailureMessage>(
        decode(encode(FailureMessage{.error = "stopped", .stopped_by_peer = true, .sent_stop = false})));
    CHECK(stopped.stopped_by_peer);
    CHECK_FALSE(stopped.sent_stop);
    CHECK(std::get<FailureMessage>(decode(encode(FailureMessage{.error = "x", .sent_stop = true}))).sent_stop);
    // Errors may carry bytes that are not UTF-8 (file names): replaced, not refused.
    const auto odd = std::get<FailureMessage>(decode(encode(FailureMessage{.error = "bad \xff name"})));
    CHECK(odd.error.find("bad ") == 0);
}

TEST_CASE("control messages: other text, or another kind than expected, is an error naming it") {
    CHECK_THROWS_WITH_AS(decode("not json"), doctest::Contains("a cluster control message that cannot be read"),
                         Error);
    CHECK_THROWS_WITH_AS(decode(R"({"kind": "gossip"})"), doctest::Contains("unknown kind \"gossip\""), Error);
    CHECK_THROWS_WITH_AS(decode(R"({"kind": "placement"})"), doctest::Contains("cannot be read"), Error);
    CHECK_THROWS_WITH_AS(expect<OwnershipMessage>(decode(encode(FinishedMessage{}))),
                         doctest::Contains("expected \"ownership\", got \"finished\""), Error);
}
