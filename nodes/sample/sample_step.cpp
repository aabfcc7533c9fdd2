#include "nodes/sample/sample_step.hpp"

#include <algorithm>
#include <chrono>
#include <set>

#include "devices/gpu_devices.hpp"
#include "invidx/error.hpp"
#include "graph/seconds_since.hpp"
#include "nodes/sample/assignment.hpp"
#include "nodes/sample/sampler.hpp"
#include "nodes/parse/parse_node.hpp"

namespace invidx {
namespace {

// Measured: a gpu_hash indexer takes 8-14 times the tokens per second of a
// cpu_btree indexer (docs/PERFORMANCE.md).
constexpr double kGpuIndexerWeight = 8;
// A GPU indexer on a device whose GPU parsers leave its terms there costs
// the host almost nothing per token (no staging): on 16 cores + H100 with
// 8 CPU indexers, popular fractions 0.1-0.3 built 1.10-1.12x faster than
// 0.5, 0.2 the fastest (docs/PERFORMANCE.md, "terms on the device"), which
// this weight gives.
constexpr double kGpuIndexerFedOnDeviceWeight = 32;

bool is_gpu(const std::string& device) { return device.rfind("gpu:", 0) == 0; }

}  // namespace

double automatic_popular_fraction(const std::vector<bool>& on_gpu, const std::vector<bool>& fed_on_device) {
    double cpus = 0, gpu_capacity = 0;
    for (size_t i = 0; i < on_gpu.size(); ++i) {
        if (!on_gpu[i]) {
            cpus += 1;
        } else {
            const bool fed = i < fed_on_device.size() && fed_on_device[i];
            gpu_capacity += fed ? kGpuIndexerFedOnDeviceWeight : kGpuIndexerWeight;
        }
    }
    if (gpu_capacity == 0 || cpus == 0) return 0.5;
    return cpus / (cpus + gpu_capacity);
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
    // The GPU indexers on a device whose GPU parsers keep their terms there.
    std::vector<int> parsing;
    for (const auto& spec : state.config.nodes)
        if (spec.kind == "parse") parsing = gpu_parser_ordinals(spec, true);
    std::vector<bool> fed_on_device;
    for (const auto& device : indexer_devices) {
        fed_on_device.push_back(is_gpu(device) && std::find(parsing.begin(), parsing.end(),
                                                            std::stoi(device.substr(4))) != parsing.end());
    }
    const double popular_fraction =
        config.popular_token_fraction.value_or(automatic_popular_fraction(on_gpu, fed_on_device));
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
                                         {"gpu_indexers_fed_on_device",
                                          std::count(fed_on_device.begin(), fed_on_device.end(), true)},
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
