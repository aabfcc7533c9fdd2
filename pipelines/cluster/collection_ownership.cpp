#include "pipelines/cluster/collection_ownership.hpp"

#include <algorithm>

#include "invidx/collections.hpp"
#include "invidx/error.hpp"
#include "nodes/sample/assignment.hpp"
#include "nodes/sample/sample_step.hpp"
#include "nodes/sample/sampler.hpp"

namespace invidx {

SampleMessage sample_own_files(const PipelineConfig& config, const std::vector<InputFile>& share,
                               const std::vector<std::string>& devices, const std::vector<bool>& fed_on_device) {
    CollectionSample sample;
    if (config.sampler.enabled && !share.empty()) {
        sample = sample_collections(share, config.sampler, config.analysis);
    } else {
        sample.tokens.assign(kCollections, 0);
    }
    return SampleMessage{.devices = devices, .fed_on_device = fed_on_device, .tokens = std::move(sample.tokens),
                         .bytes = sample.bytes,
                         .documents = sample.documents, .files = sample.files};
}

ControlMessage decide_ownership(const PipelineConfig& config, const std::vector<ControlMessage>& samples) {
    std::string failures;
    for (const auto& message : samples)
        if (const auto* failure = std::get_if<FailureMessage>(&message))
            failures += (failures.empty() ? "" : "; ") + failure->error;
    if (!failures.empty()) return FailureMessage{.error = failures};

    OwnershipMessage ownership;
    ownership.tokens.assign(kCollections, 0);
    ownership.first_indexer = {0};
    std::vector<bool> on_gpu, fed_on_device;
    for (const auto& message : samples) {
        const auto& sample = std::get<SampleMessage>(message);
        for (uint32_t c = 0; c < kCollections; ++c) ownership.tokens[c] += sample.tokens.at(c);
        for (size_t i = 0; i < sample.devices.size(); ++i) {
            on_gpu.push_back(sample.devices[i] != "cpu");
            fed_on_device.push_back(i < sample.fed_on_device.size() && sample.fed_on_device[i]);
        }
        ownership.first_indexer.push_back(static_cast<uint32_t>(on_gpu.size()));
        ownership.sampled.push_back(
            SampledShare{.bytes = sample.bytes, .documents = sample.documents, .files = sample.files});
    }
    // A GPU indexer fed on its device gets there only its own rank's share
    // of its collections' tokens: the other ranks' come through the host.
    const double fed_share = 1.0 / static_cast<double>(samples.size());
    ownership.popular_token_fraction = config.sampler.popular_token_fraction.value_or(
        automatic_popular_fraction(on_gpu, fed_on_device, fed_share));
    CollectionAssignment global = assign_collections(ownership.tokens, on_gpu, ownership.popular_token_fraction,
                                                     config.sampler.max_popular);
    for (uint32_t c = 0; c < kCollections; ++c)
        if (global.popular[c]) ownership.popular.push_back(c);
    ownership.owner = std::move(global.owner);
    ownership.expected_tokens = std::move(global.expected_tokens_per_indexer);
    return ownership;
}

RankOwnership rank_ownership(OwnershipMessage global, int rank, size_t indexers, const std::string& who) {
    const auto& first_indexer = global.first_indexer;
    const uint32_t mine_begin = first_indexer.at(static_cast<size_t>(rank));
    const uint32_t mine_end = first_indexer.at(static_cast<size_t>(rank) + 1);
    ensure(mine_end - mine_begin == indexers, who + ": the ownership was made for another number of indexers");
    auto owner_rank = std::make_shared<std::vector<uint32_t>>(kCollections);
    CollectionAssignment local;
    local.owner.assign(kCollections, mine_end - mine_begin);  // owned by none of this rank's indexers
    local.popular.assign(kCollections, false);
    local.sampled_tokens = global.tokens;
    local.expected_tokens_per_indexer.assign(global.expected_tokens.begin() + mine_begin,
                                             global.expected_tokens.begin() + mine_end);
    for (uint32_t c = 0; c < kCollections; ++c) {
        const uint32_t g = global.owner[c];
        (*owner_rank)[c] = static_cast<uint32_t>(std::upper_bound(first_indexer.begin(), first_indexer.end(), g) -
                                                 first_indexer.begin() - 1);
        if (g >= mine_begin && g < mine_end) local.owner[c] = g - mine_begin;
    }
    for (const uint32_t c : global.popular) local.popular[c] = true;
    return RankOwnership{.global = std::move(global), .local = std::move(local), .owner_rank = std::move(owner_rank)};
}

}  // namespace invidx
