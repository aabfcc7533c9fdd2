// Which input files each rank of a cluster build indexes: one contiguous
// range of the sorted file list per rank, so that concatenating the ranks'
// documents in rank order gives the single machine's docids (CONTENT.md §1-2).
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "invidx/config.hpp"
#include "invidx/messages.hpp"

namespace invidx {

// Files [begin, end) of the sorted list; empty when begin == end.
struct FileRange {
    uint32_t begin = 0;
    uint32_t end = 0;
};

// The pipeline's "input" expanded into the sorted file list (CONTENT.md §1-2),
// formats detected from the names where "auto". Throws ConfigError when
// there is no input, invidx::Error when an input is missing or unreadable.
std::vector<InputFile> expand_pipeline_inputs(const PipelineConfig& config);

// Per file, what cluster.assign_files balances: its bytes on disk, a
// one-stream gzip file's weighed by `stream_weight` ("work",
// pipelines/cluster/file_work.hpp), its bytes ("size") or 1 ("count"); a
// file of 0 bytes weighs 1, so that empty files still spread. Rank 0
// computes them and sends them with the file list, so every rank cuts the
// list alike.
std::vector<uint64_t> assignment_weights(const std::vector<InputFile>& files, FileAssignment mode, double stream_weight);

// `ranks` contiguous ranges covering every file once, in rank order: a file
// goes to the rank whose share of the total weight, [r/ranks, (r+1)/ranks),
// holds the file's middle (so ranges hold nearly equal weights, a file is
// never split, and a rank gets no file when there are more ranks than files
// or one file outweighs several ranks' shares).
// Deterministic: every rank computes the same ranges.
std::vector<FileRange> assign_file_ranges(const std::vector<uint64_t>& weights, uint32_t ranks);

// Files [range.begin, range.end) with their ordinals renumbered from 0, as
// one rank's pipeline takes them (its part index refers to them so).
std::vector<InputFile> files_of_range(const std::vector<InputFile>& files, FileRange range);

// The file list as rank 0 sends it to the others, and back.
nlohmann::json files_to_json(const std::vector<InputFile>& files);
std::vector<InputFile> files_from_json(const nlohmann::json& list);

}  // namespace invidx
