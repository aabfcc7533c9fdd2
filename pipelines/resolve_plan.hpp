// The resolve step of a build (graph/build_plan.hpp): the pipeline
// description and the machine in, every "auto" settled out, once, before any
// node is made. A single build and each rank of a cluster build resolve
// their plan the same way, each from its own cores and GPUs.
#pragma once

#include <vector>

#include "graph/build_plan.hpp"
#include "invidx/config.hpp"
#include "invidx/messages.hpp"
#include "invidx/registry.hpp"

namespace invidx {

// The cores this process may use and the CUDA GPUs it sees.
MachineResources this_machine();

// Runs the resolvers of the pipeline's node kinds in pipeline order, then
// settles what depends on several nodes: the token count, which GPU indexer
// takes which GPU parsers' terms, and the sampler's popular fraction.
// Throws ConfigError naming the key for a bad configuration.
BuildPlan resolve_build_plan(const PipelineConfig& config, const NodeRegistry& registry,
                             const MachineResources& machine);

// A build's configuration as it runs, and its plan.
struct ResolvedBuild {
    PipelineConfig config;
    BuildPlan plan;
};

// The resolve step of a build on one machine, and of `invidx-run --plan`,
// which must show what the build would do: first the configuration the
// build runs with ("auto" inputs whose first JSONL file of `files` starts
// with a term vector make it pre-weighted, pipelines/vector_detection.hpp;
// `detect_vectors` false: the caller chose the files and the configuration
// says all), then resolve_build_plan of that configuration (pre-weighted
// documents take CPU parsers, for one). Throws what those two throw.
// The first half of resolve_build: the configuration the build runs with.
PipelineConfig configuration_to_run(const PipelineConfig& config, const std::vector<InputFile>& files,
                                    bool detect_vectors);

ResolvedBuild resolve_build(const PipelineConfig& config, const std::vector<InputFile>& files, bool detect_vectors,
                            const NodeRegistry& registry, const MachineResources& machine);

// "auto" memory.tokens: 3 per core, so on many cores the decoders and
// parsers stay fed; 4 per core where GPUs do all the parsing, since a batch
// is held longer on its way through a GPU's slots. At least 16 where GPUs
// parse, at least 8 where only the CPU does (on 2 cores 8 build as fast as
// 16, with a third less memory).
uint32_t automatic_token_count(unsigned cores, bool gpus_parse, bool gpus_parse_alone);

}  // namespace invidx
