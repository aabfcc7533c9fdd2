// Wall-clock seconds since `start`, for the stage times and node metrics of
// the report: one steady clock everywhere, so the figures add up.
#pragma once

#include <chrono>

namespace invidx {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace invidx
