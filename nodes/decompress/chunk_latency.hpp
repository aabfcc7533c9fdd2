// How long a split file's chunks take from the router to the reassembler,
// by the path they took (report: split_gzip.chunk_seconds). A chunk the GPUs
// inflate waits for a batch, the batch for its kernel and, with members over
// the cap, the chunk for a CPU decoder to fill them; while it does, the
// chunks after it wait in the reassembler holding their tokens.
#pragma once

#include <chrono>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "graph/latency_stat.hpp"

namespace invidx {

class ChunkLatency {
public:
    void add(std::chrono::steady_clock::time_point routed_at, std::chrono::steady_clock::time_point arrived) {
        waits_.add(routed_at, arrived);
    }
    uint64_t chunks() const { return waits_.count(); }
    // The report's own names: "chunks" where LatencyStat says "count".
    nlohmann::json to_json() const {
        return {{"chunks", waits_.count()}, {"mean", waits_.mean_seconds()}, {"max", waits_.max_seconds()}};
    }

private:
    LatencyStat waits_;
};

}  // namespace invidx
