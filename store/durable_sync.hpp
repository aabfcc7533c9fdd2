// Every fsync of a build goes through here, so that report.json can say how
// long the build waited for the disk (a fast disk makes it noise; a slow or
// networked one makes it the largest fixed cost of a build), and so that
// files written one after another can be made durable together.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace invidx {

// fsync(fd), its wait added to the process's total; returns fsync's result
// (errno set on failure).
int timed_fsync(int fd);

// Seconds this process has waited in timed_fsync, summed over threads, and
// how many calls it made.
double sync_wait_seconds();
uint64_t sync_calls();

// Opens, fsyncs and closes each file, several at once: the waits overlap
// where one at a time would add up. An invidx::Error names the first file
// that fails.
void sync_files(const std::vector<std::filesystem::path>& files);

}  // namespace invidx
