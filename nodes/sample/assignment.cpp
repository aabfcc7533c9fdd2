#include "nodes/sample/assignment.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <string>
#include <utility>

#include "invidx/error.hpp"
#include "nodes/messages.hpp"

namespace invidx {

CollectionAssignment assign_collections(const std::vector<uint64_t>& sampled_tokens,
                                        uint32_t indexer_count, double popular_token_fraction,
                                        uint32_t max_popular) {
    const ErrorContext context{.node = "sample", .file = {}, .record = {}, .byte_offset = {}};
    ensure(sampled_tokens.size() == kCollections,
           "sample has " + std::to_string(sampled_tokens.size()) + " collections, expected " +
               std::to_string(kCollections),
           context);
    ensure(indexer_count > 0, "cannot assign collections to 0 indexers", context);
    ensure(popular_token_fraction >= 0.0 && popular_token_fraction <= 1.0,
           "popular token fraction must lie in [0, 1]", context);

    CollectionAssignment out;
    out.owner.resize(kCollections);
    out.popular.assign(kCollections, false);
    out.sampled_tokens = sampled_tokens;
    out.expected_tokens_per_indexer.assign(indexer_count, 0);

    // Sampled collections, heaviest first; the index breaks ties so the
    // result never depends on the sort's stability.
    std::vector<uint32_t> seen;
    for (uint32_t c = 0; c < kCollections; ++c) {
        if (sampled_tokens[c] != 0) {
            seen.push_back(c);
        } else {
            out.owner[c] = c % indexer_count;
        }
    }
    std::sort(seen.begin(), seen.end(), [&](uint32_t a, uint32_t b) {
        return sampled_tokens[a] != sampled_tokens[b] ? sampled_tokens[a] > sampled_tokens[b]
                                                      : a < b;
    });

    // Least-loaded indexer first, smaller index on equal loads.
    using Load = std::pair<uint64_t, uint32_t>;
    std::priority_queue<Load, std::vector<Load>, std::greater<Load>> loads;
    for (uint32_t i = 0; i < indexer_count; ++i) loads.push({0, i});
    for (const uint32_t c : seen) {
        auto [load, indexer] = loads.top();
        loads.pop();
        out.owner[c] = indexer;
        load += sampled_tokens[c];
        out.expected_tokens_per_indexer[indexer] = load;
        loads.push({load, indexer});
    }

    const uint64_t total = std::accumulate(sampled_tokens.begin(), sampled_tokens.end(), uint64_t{0});
    const double wanted = popular_token_fraction * static_cast<double>(total);
    uint64_t covered = 0;
    uint32_t chosen = 0;
    for (const uint32_t c : seen) {
        if (static_cast<double>(covered) >= wanted || chosen >= max_popular) break;
        out.popular[c] = true;
        covered += sampled_tokens[c];
        ++chosen;
    }
    return out;
}

}  // namespace invidx
