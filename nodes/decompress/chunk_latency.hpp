// How long a split file's chunks take from the router to the reassembler,
// by the path they took (report: split_gzip.chunk_seconds). A chunk the GPUs
// inflate waits for a batch, the batch for its kernel and, with members over
// the cap, the chunk for a CPU decoder to fill them; while it does, the
// chunks after it wait in the reassembler holding their tokens.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

#include <nlohmann/json.hpp>

namespace invidx {

class ChunkLatency {
public:
    void add(std::chrono::steady_clock::time_point routed_at, std::chrono::steady_clock::time_point arrived) {
        const double seconds = std::chrono::duration<double>(arrived - routed_at).count();
        ++chunks_;
        sum_seconds_ += seconds;
        max_seconds_ = std::max(max_seconds_, seconds);
    }
    uint64_t chunks() const { return chunks_; }
    nlohmann::json to_json() const {
        return {{"chunks", chunks_},
                {"mean", chunks_ == 0 ? 0.0 : sum_seconds_ / static_cast<double>(chunks_)},
                {"max", max_seconds_}};
    }

private:
    uint64_t chunks_ = 0;
    double sum_seconds_ = 0;
    double max_seconds_ = 0;
};

}  // namespace invidx
