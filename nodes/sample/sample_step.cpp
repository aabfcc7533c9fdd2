#include "nodes/sample/sample_step.hpp"

#include <algorithm>
#include <chrono>

#include "devices/gpu_devices.hpp"
#include "graph/build_plan.hpp"
#include "graph/seconds_since.hpp"
#include "graph/thread_names.hpp"
#include "invidx/error.hpp"
#include "nodes/sample/assignment.hpp"
#include "nodes/sample/sampler.hpp"

namespace invidx {
namespace {

// A gpu_hash indexer takes several times the tokens per second of a
// cpu_btree indexer, so the popular fraction counts it as 8 CPU ones
// (docs/PERFORMANCE.md, "GPU indexers" and "Pipeline defaults").
constexpr double kGpuIndexerWeight = 8;
// A GPU indexer on a device whose GPU parsers leave its terms there costs
// the host almost nothing per token (no staging), so it should take more of
// the collections than its kernel rate alone says: with 8 CPU indexers this
// weight gives a popular fraction of 0.2, the fastest of those swept
// (docs/PERFORMANCE.md, "Pipeline defaults").
constexpr double kGpuIndexerFedOnDeviceWeight = 32;

}  // namespace

double automatic_popular_fraction(const std::vector<bool>& on_gpu, const std::vector<bool>& fed_on_device,
                                  double fed_share) {
    ensure(fed_share > 0 && fed_share <= 1, "the share of a GPU indexer's tokens fed on its device lies in (0, 1]");
    // Its tokens take 1/kGpuIndexerFedOnDeviceWeight of a CPU indexer's time
    // each where they arrive on the device, 1/kGpuIndexerWeight where they
    // come through the host: its capacity is the mix's harmonic mean.
    const double fed_weight = 1 / (fed_share / kGpuIndexerFedOnDeviceWeight + (1 - fed_share) / kGpuIndexerWeight);
    double cpus = 0, gpu_capacity = 0;
    for (size_t i = 0; i < on_gpu.size(); ++i) {
        if (!on_gpu[i]) {
            cpus += 1;
        } else {
            const bool fed = i < fed_on_device.size() && fed_on_device[i];
            gpu_capacity += fed ? fed_weight : kGpuIndexerWeight;
        }
    }
    if (gpu_capacity == 0 || cpus == 0) return 0.5;
    return cpus / (cpus + gpu_capacity);
}

TimedSample take_sample(const std::vector<InputFile>& files, const PipelineConfig& config) {
    const auto start = std::chrono::steady_clock::now();
    TimedSample taken;
    if (config.sampler.enabled) {
        try {
            taken.sample = sample_collections(files, config.sampler, config.analysis);
        } catch (const Error& error) {
            throw error.with_defaults(ErrorContext{.node = "sampler", .file = {}, .record = {}, .byte_offset = {}});
        }
    } else {
        taken.sample.tokens.assign(kCollections, 0);
    }
    taken.seconds = seconds_since(start);
    return taken;
}

CollectionAssignment assign_from_sample(RunState& state, const TimedSample& taken, double waited_seconds) {
    const SamplerConfig& config = state.config.sampler;
    const BuildPlan& plan = state.plan;
    ensure(plan.indexing.has_value(), "sampling needs the plan's indexers");
    const CollectionSample& sample = taken.sample;
    std::vector<bool> on_gpu;
    for (const auto& device : plan.indexing->devices()) on_gpu.push_back(device.is_gpu());
    CollectionAssignment assignment =
        assign_collections(sample.tokens, on_gpu, plan.popular_token_fraction, config.max_popular);
    const auto popular = static_cast<uint64_t>(std::count(assignment.popular.begin(), assignment.popular.end(), true));
    state.add_stage_seconds("sampling", waited_seconds);
    state.add_report_section("sampler", {{"enabled", config.enabled},
                                         {"files", sample.files},
                                         {"bytes", sample.bytes},
                                         {"documents", sample.documents},
                                         {"seconds", taken.seconds},
                                         {"popular_collections", popular},
                                         {"popular_token_fraction", plan.popular_token_fraction},
                                         {"popular_token_fraction_auto", plan.popular_token_fraction_auto},
                                         {"gpu_indexers_fed_on_device",
                                          std::count(plan.fed_on_device.begin(), plan.fed_on_device.end(), true)},
                                         {"max_popular", config.max_popular},
                                         {"expected_tokens_per_indexer", assignment.expected_tokens_per_indexer}});
    return assignment;
}

GpuWarmUp::GpuWarmUp(const std::vector<int>& ordinals) {
    for (const int ordinal : ordinals) {
        threads_.emplace_back([ordinal] {
            name_this_thread("invidx-warmup");
            warm_up_gpu(ordinal);
        });
    }
}
GpuWarmUp::~GpuWarmUp() {
    for (auto& thread : threads_) thread.join();
}

}  // namespace invidx
