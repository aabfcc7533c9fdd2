// Where a query runs: a CPU thread or the Searcher's GPU (query/gpu_evaluator.hpp).
#pragma once

#include <string_view>

namespace invidx {

enum class QueryDevice { kCpu, kGpu };

inline std::string_view device_name(QueryDevice device) { return device == QueryDevice::kGpu ? "gpu" : "cpu"; }

}  // namespace invidx
