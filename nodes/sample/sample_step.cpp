#include "nodes/sample/sample_step.hpp"

#include <algorithm>
#include <chrono>
#include <set>

#include "devices/gpu_devices.hpp"
#include "invidx/error.hpp"
#include "graph/seconds_since.hpp"
#include "nodes/sample/assignment.hpp"
#include "nodes/sample/sampler.hpp"

namespace invidx {
namespace {

// Measured: a gpu_hash indexer takes 8-14 times the tokens per second of a
// cpu_btree indexer (docs/PERFORMANCE.md).
constexpr double kGpuIndexerWeight = 8;

bool is_gpu(const std::string& device) { return device.rfind("gpu:", 0) == 0; }

}  // namespace

double automatic_popular_fraction(const std::vector<bool>& on_gpu) {
    const auto gpus = static_cast<double>(std::count(on_gpu.begin(), on_gpu.end(), true));
    const double cpus = static_cast<double>(on_gpu.size()) - gpus;
    if (gpus == 0 || cpus == 0) return 0.5;
    return cpus / (cpus + kGpuIndexerWeight * gpus);
}

CollectionAssignment sample_and_assign(RunState& state, const std::vector<std::string>& indexer_devices) {
    const auto start = std::chrono::steady_clock::now();
    const SamplerConfig& config = state.config.sampler;
    CollectionSample sample;
    if (config.enabled) {
        try {
            sample = sample_collections(state.files, config, state.config.analysis);
        } catch (const Error& error) {
            throw error.with_defaults(ErrorContext{.node = "sampler", .file = {}, .record = {}, .byte_offset = {}});
        }
    } else {
        sample.tokens.assign(kCollections, 0);
    }
    std::vector<bool> on_gpu;
    for (const auto& device : indexer_devices) on_gpu.push_back(device != "cpu");
    const double popular_fraction = config.popular_token_fraction.value_or(automatic_popular_fraction(on_gpu));
    CollectionAssignment assignment = assign_collections(sample.tokens, on_gpu, popular_fraction, config.max_popular);
    const auto popular = static_cast<uint64_t>(std::count(assignment.popular.begin(), assignment.popular.end(), true));
    state.add_stage_seconds("sampling", seconds_since(start));
    state.add_report_section("sampler", {{"enabled", config.enabled},
                                         {"files", sample.files},
                                         {"bytes", sample.bytes},
                                         {"documents", sample.documents},
                                         {"popular_collections", popular},
                                         {"popular_token_fraction", popular_fraction},
                                         {"popular_token_fraction_auto", !config.popular_token_fraction},
                                         {"max_popular", config.max_popular},
                                         {"expected_tokens_per_indexer", assignment.expected_tokens_per_indexer}});
    return assignment;
}

GpuWarmUp::GpuWarmUp(const std::vector<std::string>& indexer_devices) {
    std::set<int> ordinals;
    for (const auto& device : indexer_devices)
        if (is_gpu(device)) ordinals.insert(std::stoi(device.substr(4)));
    for (const int ordinal : ordinals) threads_.emplace_back([ordinal] { warm_up_gpu(ordinal); });
}

GpuWarmUp::~GpuWarmUp() {
    for (auto& thread : threads_) thread.join();
}

}  // namespace invidx
