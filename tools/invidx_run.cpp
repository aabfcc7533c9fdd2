// invidx-run: builds an index from a pipeline description.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "invidx/pipeline.hpp"
#include "devices/gpu_devices.hpp"
#include "nodes/index/indexer_registry.hpp"

namespace {

constexpr const char* kUsage = R"(usage: invidx-run PIPELINE.json [--input PATH]... [--output DIR] [--set KEY=VALUE]...
                  [--progress auto|bar|lines|off] [--quiet] [--list-kinds] [--help]

Builds an inverted index as the pipeline description says (docs/PIPELINE.md).

  --input PATH       index PATH (file, directory or glob) instead of the pipeline's "input";
                     may be repeated
  --output DIR       write the index to DIR instead of the pipeline's "output"
  --set KEY=VALUE    override one key: a dotted path, nodes addressed by name, a JSON value
                     (e.g. --set parse.count=4 --set memory.tokens=8 --set positions=true)
  --progress MODE    progress on stderr: bar on a terminal, a line every 5 s otherwise (auto)
  --quiet            print no summary table at the end
  --list-kinds       list the registered node and indexer kinds and the GPUs, and exit

Example:
  invidx-run configs/default.json --input sample/debian-docs.warc.gz --output /tmp/idx --set parse.count=2

The index is written to a temporary directory beside DIR and published atomically at the
end; report.json in it holds the timings. Exit codes: 0 built; 1 the build failed (bad
input, I/O error); 2 bad command line or pipeline description.
)";

int usage_error(const std::string& message) {
    std::fprintf(stderr, "invidx-run: %s\n(see invidx-run --help)\n", message.c_str());
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::string pipeline_file;
    std::vector<std::string> inputs;
    std::vector<std::string> overrides;
    std::string output;
    std::string progress;
    bool quiet = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const auto value = [&](const char* flag) -> std::string {
            if (i + 1 >= argc) throw std::invalid_argument(std::string(flag) + " needs a value");
            return argv[++i];
        };
        try {
            if (arg == "--help" || arg == "-h") {
                std::fputs(kUsage, stdout);
                return 0;
            } else if (arg == "--list-kinds") {
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
                return 0;
            } else if (arg == "--input") {
                inputs.push_back(value("--input"));
            } else if (arg == "--output") {
                output = value("--output");
            } else if (arg == "--set") {
                overrides.push_back(value("--set"));
            } else if (arg == "--progress") {
                progress = value("--progress");
            } else if (arg == "--quiet") {
                quiet = true;
            } else if (!arg.empty() && arg[0] == '-') {
                return usage_error("unknown option " + arg);
            } else if (pipeline_file.empty()) {
                pipeline_file = arg;
            } else {
                return usage_error("more than one pipeline file given ('" + pipeline_file + "', '" + arg + "')");
            }
        } catch (const std::invalid_argument& error) {
            return usage_error(error.what());
        }
    }
    if (pipeline_file.empty()) return usage_error("no pipeline file given");

    invidx::PipelineConfig config;
    try {
        if (!inputs.empty()) {
            nlohmann::json list = nlohmann::json::array();
            for (const auto& input : inputs) list.push_back(input);
            overrides.insert(overrides.begin(), "input=" + list.dump());
        }
        if (!output.empty()) overrides.push_back("output=" + nlohmann::json(output).dump());
        if (!progress.empty()) overrides.push_back("progress=" + nlohmann::json(progress).dump());
        config = invidx::PipelineConfig::from_file(pipeline_file, overrides);
    } catch (const invidx::Error& error) {
        std::fprintf(stderr, "invidx-run: %s\n", error.what());
        return 2;
    }

    try {
        invidx::Pipeline pipeline(std::move(config));
        const invidx::BuildReport report = pipeline.run();
        if (!quiet) std::cout << report.summary_table();
        std::fprintf(stderr, "invidx-run: index written to %s\n", pipeline.config().output.c_str());
        return 0;
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
