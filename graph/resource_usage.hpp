// Process memory and CPU figures for the report.
#pragma once

#include <cstdint>

namespace invidx {

uint64_t peak_rss_bytes();     // high-water mark of resident memory (getrusage)
uint64_t current_rss_bytes();  // resident now (/proc/self/statm), 0 if unknown
double process_cpu_seconds();  // user + system CPU time of every thread so far (getrusage)
uint64_t thread_cpu_ns();      // CPU time of the calling thread so far, 0 if unknown

}  // namespace invidx
