// Stemming tokens on a GPU with the host's own Porter stemmer
// (analysis/porter.hpp, compiled for the device too), the first piece of
// analysis on the device: its stems must equal the CPU's byte for byte.
// C++17 and free of CUDA headers: devices/no_cuda.cpp throws for builds
// without CUDA.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace invidx {

// Tokens (or stems) back to back: token i is bytes [offsets[i], offsets[i + 1]).
struct GpuTokenList {
    std::string bytes;
    std::vector<uint32_t> offsets;  // one more than there are tokens; starts at 0

    size_t size() const { return offsets.empty() ? 0 : offsets.size() - 1; }
};

// The Porter stems of `tokens` (each at most kMaxTokenBytes bytes), in order,
// computed on GPU `device`, one thread per token. Throws invidx::Error naming
// the device when it cannot be used, or when `tokens` is malformed.
GpuTokenList gpu_stem_tokens(int device, const GpuTokenList& tokens);

}  // namespace invidx
