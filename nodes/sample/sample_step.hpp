// Sampling, the step of a build before its graph runs (Wei & JaJa §III.E):
// the start of evenly spaced input files is parsed and its tokens counted per
// trie collection, and each collection is bound to one indexer for the whole
// build, the popular ones to the CPU indexers. The pipeline takes the sample
// while it resolves its plan, and binds the collections once the graph is
// made (every configuration error first), before it runs.
#pragma once

#include <string>
#include <thread>
#include <vector>

#include "invidx/collection_assignment.hpp"
#include "invidx/run_state.hpp"
#include "nodes/sample/sampler.hpp"

namespace invidx {

// The sample of `files` by `config`'s sampler and analysis settings, and
// how long it took. Free of any build state, so that a build can take it
// on a thread of its own while it resolves its plan (pipelines/pipeline.cpp).
// With the sampler disabled, every collection counts 0 tokens (the c mod n
// rule). Errors name the sampler node.
struct TimedSample {
    CollectionSample sample;
    double seconds = 0;
};
TimedSample take_sample(const std::vector<InputFile>& files, const PipelineConfig& config);

// The plan's indexers bound to collections by `taken`, with the plan's
// popular fraction; adds the "sampler" report section (with the sample's
// own `seconds`) and `waited_seconds`, what the build waited for the sample,
// as the "sampling" stage.
CollectionAssignment assign_from_sample(RunState& state, const TimedSample& taken, double waited_seconds);

// The share of sampled tokens the popular collections cover when
// sampler.popular_token_fraction is "auto": the CPU indexers' share of the
// indexing capacity, a GPU indexer counted as kGpuIndexerWeight CPU ones;
// 0.5 when the indexers are all CPU or all GPU.
// A GPU indexer that GPU parsers feed on its device (fed_on_device[i], as
// many entries as on_gpu or none) counts kGpuIndexerFedOnDeviceWeight, for
// the share `fed_share` of its tokens that arrive there: all of them on one
// machine; in a cluster build of P ranks 1/P (its own rank's files), the
// rest coming from other ranks through the host.
double automatic_popular_fraction(const std::vector<bool>& on_gpu, const std::vector<bool>& fed_on_device = {},
                                  double fed_share = 1.0);

// GPU contexts take a while to create (0.05-0.2 s): this creates those of
// the GPUs `ordinals` on threads of their own, so that it overlaps what
// comes before their first use, and joins them when destroyed. Errors are
// left to the nodes that use the GPUs.
class GpuWarmUp {
public:
    explicit GpuWarmUp(const std::vector<int>& ordinals);
    ~GpuWarmUp();
    GpuWarmUp(const GpuWarmUp&) = delete;
    GpuWarmUp& operator=(const GpuWarmUp&) = delete;

private:
    std::vector<std::thread> threads_;
};

}  // namespace invidx
