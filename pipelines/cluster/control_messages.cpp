#include "pipelines/cluster/control_messages.hpp"

#include <array>
#include <utility>

#include "invidx/collections.hpp"
#include "invidx/error.hpp"
#include "pipelines/cluster/file_ranges.hpp"
#include "pipelines/cluster/written_run_json.hpp"

namespace invidx {
namespace {

using nlohmann::json;

// In the order of ControlMessage's alternatives.
constexpr std::array<std::string_view, std::variant_size_v<ControlMessage>> kKindNames = {
    "plan",     "sample", "ownership",   "figures", "placement", "runs", "finished", "failure", "part_built",
    "stop_count", "parts_placement", "join_report"};

// One body() and one read() per kind: the fields beside "kind".

json body(const ClusterPlan& plan) {
    return {{"files", files_to_json(plan.files)}, {"parts", plan.parts_dir.string()},
            {"file_weights", plan.file_weights}, {"stream_file_weight", plan.stream_file_weight}};
}
void read(const json& j, ClusterPlan& plan) {
    plan.files = files_from_json(j.at("files"));
    plan.parts_dir = j.at("parts").get<std::string>();
    plan.file_weights = j.at("file_weights").get<std::vector<uint64_t>>();
    plan.stream_file_weight = j.at("stream_file_weight").get<double>();
    ensure(plan.file_weights.size() == plan.files.size(), "a cluster plan whose file weights are not one a file");
}

json body(const SampleMessage& sample) {
    json tokens = json::array();  // sparse: [collection, tokens] pairs
    for (uint32_t c = 0; c < sample.tokens.size(); ++c)
        if (sample.tokens[c] != 0) tokens.push_back({c, sample.tokens[c]});
    return {{"devices", sample.devices}, {"fed_on_device", sample.fed_on_device}, {"tokens", tokens},
            {"bytes", sample.bytes},
            {"documents", sample.documents}, {"files", sample.files}};
}
void read(const json& j, SampleMessage& sample) {
    sample.devices = j.at("devices").get<std::vector<std::string>>();
    sample.fed_on_device = j.at("fed_on_device").get<std::vector<bool>>();
    sample.tokens.assign(kCollections, 0);
    for (const auto& pair : j.at("tokens")) sample.tokens.at(pair.at(0).get<uint32_t>()) = pair.at(1).get<uint64_t>();
    sample.bytes = j.at("bytes").get<uint64_t>();
    sample.documents = j.at("documents").get<uint64_t>();
    sample.files = j.at("files").get<uint32_t>();
}

json body(const OwnershipMessage& ownership) {
    json sampled = json::array();
    for (const auto& share : ownership.sampled)
        sampled.push_back({{"bytes", share.bytes}, {"documents", share.documents}, {"files", share.files}});
    return {{"owner", ownership.owner},
            {"popular", ownership.popular},
            {"expected", ownership.expected_tokens},
            {"first_indexer", ownership.first_indexer},
            {"tokens", ownership.tokens},
            {"sampled", sampled},
            {"popular_token_fraction", ownership.popular_token_fraction}};
}
void read(const json& j, OwnershipMessage& ownership) {
    ownership.owner = j.at("owner").get<std::vector<uint32_t>>();
    ownership.popular = j.at("popular").get<std::vector<uint32_t>>();
    ownership.expected_tokens = j.at("expected").get<std::vector<uint64_t>>();
    ownership.first_indexer = j.at("first_indexer").get<std::vector<uint32_t>>();
    ownership.tokens = j.at("tokens").get<std::vector<uint64_t>>();
    for (const auto& share : j.at("sampled"))
        ownership.sampled.push_back(SampledShare{.bytes = share.at("bytes").get<uint64_t>(),
                                                 .documents = share.at("documents").get<uint64_t>(),
                                                 .files = share.at("files").get<uint32_t>()});
    ownership.popular_token_fraction = j.at("popular_token_fraction").get<double>();
}

json body(const FiguresMessage& figures) {
    return {{"documents", figures.documents}, {"part_runs", figures.part_runs}, {"figures", figures.figures}};
}
void read(const json& j, FiguresMessage& figures) {
    figures.documents = j.at("documents").get<uint64_t>();
    figures.part_runs = j.at("part_runs").get<uint32_t>();
    figures.figures = j.at("figures");
}

json body(const PlacementMessage& placement) {
    return {{"first_docids", placement.first_docids}, {"first_runs", placement.first_runs}};
}
void read(const json& j, PlacementMessage& placement) {
    placement.first_docids = j.at("first_docids").get<std::vector<uint64_t>>();
    placement.first_runs = j.at("first_runs").get<std::vector<uint32_t>>();
}

json body(const RunsMessage& runs) {
    json j = {{"adopted", runs.adopted}, {"terms", runs.terms}, {"merge_seconds", runs.merge_seconds},
              {"runs", json::array()}};
    for (const auto& run : runs.runs) j["runs"].push_back(written_run_to_json(run, runs.with_slots));
    return j;
}
void read(const json& j, RunsMessage& runs) {
    runs.adopted = j.at("adopted").get<bool>();
    runs.terms = j.at("terms").get<uint64_t>();
    runs.merge_seconds = j.at("merge_seconds").get<double>();
    for (const auto& run : j.at("runs")) {
        runs.runs.push_back(written_run_from_json(run));
        runs.with_slots = runs.with_slots || run.contains("slots");
    }
}

json body(const FinishedMessage&) { return json::object(); }
void read(const json&, FinishedMessage&) {}

json body(const FailureMessage& failure) {
    return {{"error", failure.error},
            {"interrupted", failure.interrupted},
            {"stopped_by_peer", failure.stopped_by_peer},
            {"sent_stop", failure.sent_stop}};
}
void read(const json& j, FailureMessage& failure) {
    failure.error = j.at("error").get<std::string>();
    failure.interrupted = j.at("interrupted").get<bool>();
    failure.stopped_by_peer = j.at("stopped_by_peer").get<bool>();
    failure.sent_stop = j.at("sent_stop").get<bool>();
}

json body(const PartBuiltMessage& built) {
    return {{"documents", built.documents}, {"terms", built.terms}, {"figures", built.figures}};
}
void read(const json& j, PartBuiltMessage& built) {
    built.documents = j.at("documents").get<uint64_t>();
    built.terms = j.at("terms").get<uint64_t>();
    built.figures = j.at("figures");
}

json body(const StopCountMessage& count) { return {{"senders", count.senders}}; }
void read(const json& j, StopCountMessage& count) { count.senders = j.at("senders").get<uint32_t>(); }

json body(const PartsPlacementMessage& placement) {
    json parts = json::array();
    for (const auto& part : placement.parts)
        parts.push_back({{"first_docid", part.first_docid}, {"documents", part.documents}});
    return {{"parts", parts}};
}
void read(const json& j, PartsPlacementMessage& placement) {
    for (const auto& part : j.at("parts"))
        placement.parts.push_back(ConcatenatedPart{.first_docid = part.at("first_docid").get<uint64_t>(),
                                                   .documents = part.at("documents").get<uint64_t>()});
}

json body(const JoinReportMessage& report) {
    json spans = json::array();
    for (const auto& span : report.spans) spans.push_back({span.offset, span.length, span.crc});
    return {{"figures", report.figures}, {"count", report.count}, {"spans", spans}};
}
void read(const json& j, JoinReportMessage& report) {
    report.figures = j.at("figures");
    report.count = j.at("count").get<uint64_t>();
    for (const auto& s : j.at("spans"))
        report.spans.push_back({s.at(0).get<uint64_t>(), s.at(1).get<uint64_t>(), s.at(2).get<uint32_t>()});
}

template <size_t Kind>
ControlMessage read_as(const json& j) {
    std::variant_alternative_t<Kind, ControlMessage> message;
    read(j, message);
    return message;
}

template <size_t... Kind>
ControlMessage read_kind(size_t kind, const json& j, std::index_sequence<Kind...>) {
    static constexpr std::array<ControlMessage (*)(const json&), sizeof...(Kind)> readers = {&read_as<Kind>...};
    return readers[kind](j);
}

}  // namespace

std::string_view kind_name(const ControlMessage& message) { return kKindNames[message.index()]; }

std::string encode(const ControlMessage& message) {
    json j = std::visit([](const auto& m) { return body(m); }, message);
    j["kind"] = kind_name(message);
    // Errors carry paths and messages that need not be valid UTF-8.
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

ControlMessage decode(std::string_view text) {
    try {
        const json j = json::parse(text);
        const std::string kind = j.at("kind").get<std::string>();
        for (size_t k = 0; k < kKindNames.size(); ++k)
            if (kKindNames[k] == kind)
                return read_kind(k, j, std::make_index_sequence<std::variant_size_v<ControlMessage>>());
        throw Error("unknown kind \"" + kind + "\"");
    } catch (const std::exception& error) {
        throw Error("a cluster control message that cannot be read: " + std::string(error.what()));
    }
}

}  // namespace invidx
