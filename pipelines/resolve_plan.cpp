#include "pipelines/resolve_plan.hpp"

#include <algorithm>

#include "devices/gpu_devices.hpp"
#include "invidx/available_cores.hpp"
#include "nodes/sample/sample_step.hpp"
#include "pipelines/vector_detection.hpp"

namespace invidx {
namespace {

void settle_tokens(const PipelineConfig& config, BuildPlan& plan) {
    const bool gpus_parse = plan.parsing && !plan.parsing->gpus.empty();
    const bool gpus_parse_alone = plan.parsing && plan.parsing->gpus_only();
    if (config.memory.tokens) {
        plan.tokens = *config.memory.tokens;
        plan.tokens_reason = "memory.tokens is given";
        return;
    }
    plan.tokens = automatic_token_count(plan.machine.cores, gpus_parse, gpus_parse_alone);
    plan.tokens_reason = gpus_parse_alone ? "\"auto\": 4 per core (at least 16) where GPUs do all the parsing"
                         : gpus_parse     ? "\"auto\": 3 per core (at least 16) where GPUs parse beside the CPU"
                                          : "\"auto\": 3 per core (at least 8) where the CPU parses alone";
}

// memory.batch_bytes "auto": larger batches where GPUs parse. With 4 MiB
// batches GPU inflate built 1.02-1.08x the CPU's inflate and the default
// build used 8-11% less CPU on 16 cores + one GPU; CPU parsers keep 2 MiB
// (docs/PERFORMANCE.md, "Pipeline defaults").
void settle_batch_bytes(const PipelineConfig& config, BuildPlan& plan) {
    const bool gpus_parse = plan.parsing && !plan.parsing->gpus.empty();
    if (config.memory.batch_bytes_auto) {
        plan.batch_bytes = gpus_parse ? kBatchBytesWithGpus : kBatchBytesWithoutGpus;
        plan.batch_bytes_reason = gpus_parse ? "\"auto\": 4 MiB where GPUs parse" : "\"auto\": 2 MiB where no GPU parses";
    } else {
        plan.batch_bytes = config.memory.batch_bytes;
        plan.batch_bytes_reason = "memory.batch_bytes is given";
    }
    plan.text_block_bytes = config.memory.text_block_bytes.value_or(auto_text_block_bytes(plan.batch_bytes));
}

// A GPU with exactly one indexer that takes device terms gets that indexer.
void settle_device_terms(BuildPlan& plan) {
    if (!plan.indexing) return;
    std::map<int, std::vector<uint32_t>> by_device;
    const auto& indexers = plan.indexing->indexers;
    for (uint32_t i = 0; i < indexers.size(); ++i)
        if (indexers[i].device.is_gpu() && indexers[i].takes_device_terms)
            by_device[indexers[i].device.ordinal].push_back(i);
    for (const auto& [device, ids] : by_device)
        if (ids.size() == 1) plan.device_terms_indexer[device] = ids.front();
}

// The GPU indexers on a device whose GPU parsers keep their terms there
// count for more in the sampler's automatic fraction.
void settle_sampler(const PipelineConfig& config, BuildPlan& plan) {
    if (!plan.indexing) return;
    const std::vector<int> keeping = plan.parsing ? plan.parsing->gpu_ordinals(true) : std::vector<int>{};
    std::vector<bool> on_gpu;
    for (const auto& indexer : plan.indexing->indexers) {
        on_gpu.push_back(indexer.device.is_gpu());
        plan.fed_on_device.push_back(indexer.device.is_gpu() &&
                                     std::find(keeping.begin(), keeping.end(), indexer.device.ordinal) != keeping.end());
    }
    plan.popular_token_fraction_auto = !config.sampler.popular_token_fraction;
    plan.popular_token_fraction =
        config.sampler.popular_token_fraction.value_or(automatic_popular_fraction(on_gpu, plan.fed_on_device));
}

}  // namespace

MachineResources this_machine() {
    MachineResources machine;
    machine.cores = available_cores();
    const GpuInventory inventory = list_gpus();
    for (const auto& gpu : inventory.devices) machine.gpus.push_back(gpu.ordinal);
    machine.gpus_note = inventory.devices.empty() ? inventory.note : std::string();
    return machine;
}

uint32_t automatic_token_count(unsigned cores, bool gpus_parse, bool gpus_parse_alone) {
    if (gpus_parse_alone) return std::max(16u, 4 * cores);
    return std::max(gpus_parse ? 16u : 8u, 3 * cores);
}

BuildPlan resolve_build_plan(const PipelineConfig& config, const NodeRegistry& registry,
                             const MachineResources& machine) {
    BuildPlan plan;
    plan.machine = machine;
    for (const NodeSpec& spec : config.nodes) {
        const NodeKind& kind = registry.get(spec.kind, spec.pointer + "/kind");
        if (!kind.resolve) continue;
        NodeOptions options(spec);
        kind.resolve(options, config, plan);
        plan.keys_read[spec.pointer] = options.keys_read();
    }
    settle_tokens(config, plan);
    settle_batch_bytes(config, plan);
    settle_device_terms(plan);
    settle_sampler(config, plan);
    return plan;
}

PipelineConfig configuration_to_run(const PipelineConfig& config, const std::vector<InputFile>& files,
                                    bool detect_vectors) {
    return detect_vectors ? with_detected_vectors(config, files) : config;
}

ResolvedBuild resolve_build(const PipelineConfig& config, const std::vector<InputFile>& files, bool detect_vectors,
                            const NodeRegistry& registry, const MachineResources& machine) {
    ResolvedBuild resolved{.config = configuration_to_run(config, files, detect_vectors), .plan = {}};
    resolved.plan = resolve_build_plan(resolved.config, registry, machine);
    return resolved;
}

}  // namespace invidx
