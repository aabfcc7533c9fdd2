// The figures each rank of a cluster build sends rank 0 about its share
// (the report's "per_rank"), and what rank 0 adds up from them. Both modes
// report the same basic figures of a share, each adding its own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/messages.hpp"
#include "pipelines/cluster/file_ranges.hpp"

namespace invidx {

// The busy seconds (or another of their figures, e.g. busy_cpu_seconds) of
// the nodes of `kind` in a report's "nodes" array.
double busy_of_kind(const nlohmann::json& nodes, const std::string& kind, const char* figure = "busy_seconds");

// A share's figures that every mode reports: the rank, its files (`range`
// of `files`) and their bytes, and from `report` (the rank's own pipeline
// report; empty where it built nothing) the text bytes, documents, tokens
// and parse busy seconds.
nlohmann::json share_figures(int rank, FileRange range, const std::vector<InputFile>& files,
                             const nlohmann::json& report);

// The sum, and the largest, of a figure over the ranks' figures (0 where a rank lacks it).
uint64_t sum_over_ranks(const nlohmann::json& per_rank, const char* figure);
double largest_over_ranks(const nlohmann::json& per_rank, const char* figure);

}  // namespace invidx
