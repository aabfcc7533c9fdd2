#include "nodes/sample/assignment.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <string>
#include <utility>

#include "invidx/error.hpp"
#include "invidx/messages.hpp"

namespace invidx {

namespace {

const ErrorContext kContext{.node = "sample", .file = {}, .record = {}, .byte_offset = {}};

void check_arguments(const std::vector<uint64_t>& sampled_tokens, size_t indexer_count,
                     double popular_token_fraction) {
    ensure(sampled_tokens.size() == kCollections,
           "sample has " + std::to_string(sampled_tokens.size()) + " collections, expected " +
               std::to_string(kCollections),
           kContext);
    ensure(indexer_count > 0, "cannot assign collections to 0 indexers", kContext);
    ensure(popular_token_fraction >= 0.0 && popular_token_fraction <= 1.0,
           "popular token fraction must lie in [0, 1]", kContext);
}

// Sampled collections, heaviest first; the index breaks ties so the result
// never depends on the sort's stability.
std::vector<uint32_t> sampled_heaviest_first(const std::vector<uint64_t>& sampled_tokens) {
    std::vector<uint32_t> seen;
    for (uint32_t c = 0; c < kCollections; ++c) {
        if (sampled_tokens[c] != 0) seen.push_back(c);
    }
    std::sort(seen.begin(), seen.end(), [&](uint32_t a, uint32_t b) {
        return sampled_tokens[a] != sampled_tokens[b] ? sampled_tokens[a] > sampled_tokens[b] : a < b;
    });
    return seen;
}

// Greedy LPT of `collections` (heaviest first) over `indexers`: each goes to
// the least-loaded one, the smaller index on equal loads.
void balance(const std::vector<uint32_t>& collections, const std::vector<uint32_t>& indexers,
             CollectionAssignment& out) {
    using Load = std::pair<uint64_t, uint32_t>;
    std::priority_queue<Load, std::vector<Load>, std::greater<Load>> loads;
    for (const uint32_t i : indexers) loads.push({out.expected_tokens_per_indexer[i], i});
    for (const uint32_t c : collections) {
        auto [load, indexer] = loads.top();
        loads.pop();
        out.owner[c] = indexer;
        load += out.sampled_tokens[c];
        out.expected_tokens_per_indexer[indexer] = load;
        loads.push({load, indexer});
    }
}

// The smallest set of most frequent collections holding the wanted share of
// the sampled tokens, at most max_popular of them.
void mark_popular(const std::vector<uint32_t>& heaviest_first, double popular_token_fraction, uint32_t max_popular,
                  CollectionAssignment& out) {
    const uint64_t total = std::accumulate(out.sampled_tokens.begin(), out.sampled_tokens.end(), uint64_t{0});
    const double wanted = popular_token_fraction * static_cast<double>(total);
    uint64_t covered = 0;
    uint32_t chosen = 0;
    for (const uint32_t c : heaviest_first) {
        if (static_cast<double>(covered) >= wanted || chosen >= max_popular) break;
        out.popular[c] = true;
        covered += out.sampled_tokens[c];
        ++chosen;
    }
}

CollectionAssignment empty_assignment(const std::vector<uint64_t>& sampled_tokens, size_t indexer_count) {
    CollectionAssignment out;
    out.owner.resize(kCollections);
    out.popular.assign(kCollections, false);
    out.sampled_tokens = sampled_tokens;
    out.expected_tokens_per_indexer.assign(indexer_count, 0);
    return out;
}

}  // namespace

CollectionAssignment assign_collections(const std::vector<uint64_t>& sampled_tokens, uint32_t indexer_count,
                                        double popular_token_fraction, uint32_t max_popular) {
    check_arguments(sampled_tokens, indexer_count, popular_token_fraction);
    CollectionAssignment out = empty_assignment(sampled_tokens, indexer_count);
    for (uint32_t c = 0; c < kCollections; ++c) {
        if (sampled_tokens[c] == 0) out.owner[c] = c % indexer_count;
    }
    const std::vector<uint32_t> seen = sampled_heaviest_first(sampled_tokens);
    std::vector<uint32_t> all(indexer_count);
    std::iota(all.begin(), all.end(), 0u);
    balance(seen, all, out);
    mark_popular(seen, popular_token_fraction, max_popular, out);
    return out;
}

CollectionAssignment assign_collections(const std::vector<uint64_t>& sampled_tokens,
                                        const std::vector<bool>& on_gpu, double popular_token_fraction,
                                        uint32_t max_popular) {
    check_arguments(sampled_tokens, on_gpu.size(), popular_token_fraction);
    std::vector<uint32_t> cpu, gpu;
    for (uint32_t i = 0; i < on_gpu.size(); ++i) (on_gpu[i] ? gpu : cpu).push_back(i);
    if (cpu.empty() || gpu.empty()) {
        return assign_collections(sampled_tokens, static_cast<uint32_t>(on_gpu.size()), popular_token_fraction,
                                  max_popular);
    }
    CollectionAssignment out = empty_assignment(sampled_tokens, on_gpu.size());
    const std::vector<uint32_t> seen = sampled_heaviest_first(sampled_tokens);
    mark_popular(seen, popular_token_fraction, max_popular, out);
    std::vector<uint32_t> popular, rest;
    for (const uint32_t c : seen) (out.popular[c] ? popular : rest).push_back(c);
    balance(popular, cpu, out);
    balance(rest, gpu, out);
    for (uint32_t c = 0; c < kCollections; ++c) {
        if (sampled_tokens[c] == 0) out.owner[c] = gpu[c % gpu.size()];
    }
    return out;
}

}  // namespace invidx
