// Process memory figures for the report.
#pragma once

#include <cstdint>

namespace invidx {

uint64_t peak_rss_bytes();     // high-water mark of resident memory (getrusage)
uint64_t current_rss_bytes();  // resident now (/proc/self/statm), 0 if unknown

}  // namespace invidx
