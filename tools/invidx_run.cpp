// invidx-run: builds an index from a pipeline description.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <iostream>
#include <pthread.h>
#include <stop_token>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "devices/gpu_devices.hpp"
#include "invidx/pipeline.hpp"
#include "invidx/indexer_registry.hpp"
#include "pipelines/build_hooks.hpp"
#include "pipelines/resolve_plan.hpp"
#include "tools/common/flags.hpp"
#include "tools/common/interrupt_watcher.hpp"

namespace {

using invidx::tools::FlagSpec;
using invidx::tools::Repeats;

invidx::tools::Flags run_flags() {
    invidx::tools::Flags flags(21);
    flags.add({.name = "--input", .value_name = "PATH",
               .help = "index PATH (file, directory or glob) instead of the pipeline's \"input\";\nmay be repeated",
               .repeats = Repeats::kCollect});
    flags.add({.name = "--output", .value_name = "DIR", .help = "write the index to DIR instead of the pipeline's \"output\"",
               .repeats = Repeats::kLastWins});
    flags.add({.name = "--set", .value_name = "KEY=VALUE",
               .help = "override one key: a dotted path, nodes addressed by name, a JSON value\n"
                       "(e.g. --set parse.count=4 --set memory.tokens=8 --set positions=true)",
               .repeats = Repeats::kCollect});
    flags.add({.name = "--progress", .value_name = "MODE",
               .help = "progress on stderr: bar on a terminal, a line every 5 s otherwise (auto)",
               .repeats = Repeats::kLastWins});
    flags.add({.name = "--quiet", .help = "print no summary table at the end", .repeats = Repeats::kLastWins});
    flags.add({.name = "--plan",
               .help = "print what every \"auto\" of the pipeline settles to on this machine (the\n"
                       "build's first step; report.json's \"plan\"), as JSON, and exit",
               .repeats = Repeats::kLastWins});
    flags.add({.name = "--list-kinds", .help = "list the registered node and indexer kinds and the GPUs, and exit",
               .repeats = Repeats::kLastWins, .stops_parsing = true});
    flags.add({.name = "--help", .help = "this help", .repeats = Repeats::kLastWins, .alias = "-h", .stops_parsing = true,
               .hidden = true});
    return flags;
}

std::string help_text(const invidx::tools::Flags& flags) {
    return flags.help(
        {.usage = "usage: invidx-run PIPELINE.json [--input PATH]... [--output DIR] [--set KEY=VALUE]...\n"
                  "                  [--progress auto|bar|lines|off] [--quiet] [--plan] [--list-kinds] [--help]",
         .description = "Builds an inverted index as the pipeline description says (docs/PIPELINE.md).",
         .options_heading = "",
         .example = "  invidx-run configs/default.json --input sample/debian-docs.warc.gz --output /tmp/idx --set parse.count=2\n",
         .footer = "The index is written to a temporary directory beside DIR and published atomically at the\n"
                   "end; report.json in it holds the timings. DIR.lock beside it keeps a second build out of\n"
                   "DIR while one runs. SIGINT (Ctrl-C) or SIGTERM stops the build, removes the temporary\n"
                   "directory and leaves DIR as it was; a second signal ends the process at once.\n"
                   "Exit codes: 0 built; 1 the build failed (bad input, I/O error, DIR locked by another\n"
                   "build); 2 bad command line or pipeline description; 130 interrupted by SIGINT; 143\n"
                   "interrupted by SIGTERM.\n"});
}

// configs/default.json's nodes, for --list-kinds to show what they settle to
// wherever the tool runs (the file itself may not be at hand).
nlohmann::json default_like_pipeline() {
    return nlohmann::json::parse(R"({"input": [], "nodes": [
        {"kind": "read"}, {"kind": "decompress", "gpus": "auto"}, {"kind": "frame"},
        {"kind": "parse", "count": "auto", "gpus": "auto"}, {"kind": "regroup", "count": "auto"},
        {"kind": "index", "indexers": [{"kind": "cpu_btree", "count": "auto"}, {"kind": "gpu_hash", "device": "auto"}]},
        {"kind": "compress", "count": "auto"}, {"kind": "flush"}]})");
}

void list_kinds() {
    std::puts("node kinds:");
    for (const auto& kind : invidx::node_registry().kinds())
        std::printf("  %-12s %s\n", kind.name.c_str(), kind.description.c_str());
    std::puts("indexer kinds (in an index node's \"indexers\"):");
    for (const auto& [name, description] : invidx::indexer_registry().kinds())
        std::printf("  %-12s %s\n", name.c_str(), description.c_str());
    const invidx::GpuInventory gpus = invidx::list_gpus();
    std::puts("GPUs:");
    for (const auto& gpu : gpus.devices)
        std::printf("  gpu:%d  %s, compute %d.%d, %d SMs, %.1f GiB\n", gpu.ordinal, gpu.name.c_str(),
                    gpu.compute_major, gpu.compute_minor, gpu.multiprocessors,
                    static_cast<double>(gpu.memory_bytes) / (1u << 30));
    if (gpus.devices.empty()) std::printf("  none: %s\n", gpus.note.c_str());
    // What configs/default.json's "auto" values become on this machine: its
    // nodes' plan (the same resolve step a build runs first).
    const invidx::PipelineConfig standard = invidx::PipelineConfig::from_json(default_like_pipeline());
    const invidx::BuildPlan plan =
        invidx::resolve_build_plan(standard, invidx::node_registry(), invidx::this_machine());
    const invidx::ParsePlan& parsing = *plan.parsing;
    std::puts("parsing with \"gpus\": \"auto\" (configs/default.json):");
    if (parsing.gpus.empty()) {
        std::printf("  CPU parsers only: %s\n", parsing.gpus_reason.c_str());
    } else {
        std::string devices;
        for (const auto& gpu : parsing.gpus) devices += (devices.empty() ? "" : ", ") + gpu.device.name();
        std::printf("  GPU parsers on %s, no CPU parsers while \"count\" is \"auto\" (%s)\n", devices.c_str(),
                    parsing.gpus_reason.c_str());
    }
    // Indexer entries with "device": "auto" follow the parsing GPUs.
    std::puts("GPU indexers with \"device\": \"auto\" (configs/default.json's gpu_hash):");
    bool any_gpu_indexer = false;
    for (const auto& indexer : plan.indexing->indexers) {
        if (!indexer.placed_automatically) continue;
        any_gpu_indexer = true;
        std::printf("  one on %s%s\n", indexer.device.name().c_str(),
                    plan.device_terms_indexer.count(indexer.device.ordinal) ? ", taking the GPU parsers' terms for it on the device" : "");
    }
    if (!any_gpu_indexer) std::printf("  none: %s\n", plan.indexing->automatic_device_reason.c_str());
    std::puts("configs/default.json's plan here (invidx-run PIPELINE.json --plan prints any pipeline's):");
    std::printf("%s\n", plan.to_json().dump(2).c_str());
}

// Tests kill the process between the steps of publishing: INVIDX_TEST_STOP_AT
// names a step ("publish:1", ...), where the process stops itself (SIGSTOP)
// for the test to kill; INVIDX_TEST_PUBLISH=renames publishes by two renames
// even where the file system can exchange directories;
// INVIDX_TEST_FAIL_JOIN_RANK=N makes rank N of a cluster build fail while
// it joins its range of the dictionary (or, with
// INVIDX_TEST_FAIL_JOIN=documents, while it writes its documents).
invidx::BuildHooks test_hooks() {
    invidx::BuildHooks options;
    if (const char* step = std::getenv("INVIDX_TEST_STOP_AT"); step && *step) {
        options.at_publish_step = [stop_at = std::string(step)](const std::string& reached) {
            if (reached != stop_at) return;
            std::fprintf(stderr, "invidx-run: stopping at %s (INVIDX_TEST_STOP_AT)\n", reached.c_str());
            std::fflush(stderr);
            raise(SIGSTOP);
        };
    }
    if (const char* publish = std::getenv("INVIDX_TEST_PUBLISH"); publish && std::string(publish) == "renames")
        options.publish_by_exchange = false;
    if (const char* rank = std::getenv("INVIDX_TEST_FAIL_JOIN_RANK"); rank && *rank) {
        const char* join = std::getenv("INVIDX_TEST_FAIL_JOIN");
        options.at_cluster_join = [failing = std::atoi(rank), in = std::string(join && *join ? join : "dictionary")](
                                      int joining, std::string_view step) {
            if (joining == failing && step == in)
                throw invidx::Error("failing while joining (INVIDX_TEST_FAIL_JOIN_RANK)");
        };
    }
    return options;
}

int usage_error(const std::string& message) {
    std::fprintf(stderr, "invidx-run: %s\n(see invidx-run --help)\n", message.c_str());
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    const invidx::tools::Flags flags = run_flags();
    invidx::tools::ParsedFlags given;
    try {
        given = flags.parse(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const invidx::tools::FlagError& error) {
        if (error.kind == invidx::tools::FlagError::Kind::kUnknown) return usage_error("unknown option " + error.word);
        return usage_error(error.what());
    }
    if (given.has("--help")) {
        std::fputs(help_text(flags).c_str(), stdout);
        return 0;
    }
    if (given.has("--list-kinds")) {
        list_kinds();
        return 0;
    }
    const auto& arguments = given.arguments();
    if (arguments.empty()) return usage_error("no pipeline file given");
    if (arguments.size() > 1) {
        return usage_error("more than one pipeline file given ('" + arguments[0] + "', '" + arguments[1] + "')");
    }
    const std::string& pipeline_file = arguments[0];
    const std::vector<std::string> inputs = given.values("--input");
    const std::vector<std::string> overrides = given.values("--set");
    const std::optional<std::string> output = given.value("--output");
    const std::optional<std::string> progress = given.value("--progress");
    const bool quiet = given.has("--quiet");
    const bool plan_only = given.has("--plan");
    // An empty output would fall back to the pipeline's (./index), replacing
    // what is there: refused, as a path the user did not mean.
    if (output && output->empty()) return usage_error("--output must name a directory, not ''");

    invidx::PipelineConfig config;
    try {
        // --input and --output go in as JSON values, not JSON text: a path
        // is bytes, which need not be UTF-8 (nlohmann's dump() rejects them).
        nlohmann::json pipeline = invidx::read_pipeline_file(pipeline_file);
        if (!inputs.empty()) invidx::apply_override(pipeline, "input", nlohmann::json(inputs));
        for (const auto& assignment : overrides) invidx::apply_override(pipeline, assignment);
        if (output) invidx::apply_override(pipeline, "output", *output);
        if (progress) invidx::apply_override(pipeline, "progress", *progress);
        config = invidx::PipelineConfig::from_json(std::move(pipeline));
    } catch (const invidx::Error& error) {
        std::fprintf(stderr, "invidx-run: %s\n", error.what());
        return 2;
    } catch (const std::exception& error) {
        // The last resort (a JSON type error the checks above missed): a
        // message and the pipeline's exit code, never an abort.
        std::fprintf(stderr, "invidx-run: pipeline '%s': %s\n", pipeline_file.c_str(), error.what());
        return 2;
    }

    if (plan_only) {
        try {
            const nlohmann::json plan = invidx::Pipeline(std::move(config)).plan();
            std::printf("%s\n", plan.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
            return 0;
        } catch (const std::exception& error) {
            std::fprintf(stderr, "invidx-run: %s\n", error.what());
            return 2;
        }
    }
    const std::string output_dir = config.output.string();
    const auto& watcher = *new invidx::cli::InterruptWatcher;
    invidx::RunOptions options;
    options.stop = watcher.token();
    options.notice = [](const std::string& line) { std::fprintf(stderr, "invidx-run: %s\n", line.c_str()); };

    try {
        invidx::Pipeline pipeline(std::move(config));
        const invidx::BuildReport report = invidx::run_pipeline(pipeline.config(), options, test_hooks());
        // A cluster build's other ranks stay quiet: rank 0 has the whole report.
        if (report.json.value("rank", 0) != 0) return 0;
        if (!quiet) std::cout << report.summary_table();
        std::fprintf(stderr, "invidx-run: index written to %s\n", pipeline.config().output.c_str());
        return 0;
    } catch (const invidx::Interrupted&) {
        const int number = watcher.signal_number() != 0 ? watcher.signal_number() : SIGINT;
        std::fprintf(stderr, "invidx-run: interrupted by %s: build stopped, temporary files removed, nothing published to %s\n",
                     number == SIGTERM ? "SIGTERM" : "SIGINT", output_dir.c_str());
        return 128 + number;
    } catch (const invidx::ConfigError& error) {
        std::fprintf(stderr, "invidx-run: %s\n", error.what());
        return 2;
    } catch (const invidx::Error& error) {
        std::fprintf(stderr, "invidx-run: build failed: %s\n", error.what());
        return 1;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "invidx-run: build failed: %s\n", error.what());
        return 1;
    }
}
