// How much work each input file is for a rank, so that a cluster build
// cuts the sorted file list where the ranks finish together
// (cluster.assign_files "work"). A rank's time goes mostly to inflating and
// parsing; where its GPUs inflate gzip members (decompress.gpus), a file of
// one gzip member per record (Common Crawl-style) is partly inflated on the
// GPU while a file of one gzip stream (ClueWeb-style) is all the CPU's, so
// its compressed bytes cost more: cut by bytes alone, the rank that gets the
// one-stream files of a mixed collection ends last and the others wait
// (docs/performance-log.md, 2026-11-29: files mode 1.09x on two ranks; in
// partition mode, where each rank indexes the others' postings, the same).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "devices/gpu_devices.hpp"
#include "graph/build_plan.hpp"
#include "invidx/config.hpp"
#include "invidx/messages.hpp"

namespace invidx {

// What a file's first bytes show.
enum class FileShape {
    other,         // not gzip, or gzip whose first member does not end in the bytes read
    gzip_members,  // a gzip member that ends where another begins: a file of members
    gzip_stream,   // one gzip member running past the bytes read: one stream
};

// Reads at most `probe_bytes` of the file at `path`; an unreadable file or
// damaged gzip is `other` (the build itself reports it).
FileShape probe_file_shape(const std::string& path, size_t probe_bytes = 64 * 1024);

// The weight of a one-stream gzip file's bytes against a file of members'
// where the rank's GPUs inflate members: on 16 cores + one H200 the
// one-stream half of a mixed collection cost 1.25-1.46 times the CPU per
// compressed byte of the per-record half, and built at about 1.3 times the
// time per compressed byte (docs/performance-log.md, 2026-11-29).
inline constexpr double kStreamFileWeightWithGpuInflate = 1.3;

// cluster.stream_file_weight where set; else kStreamFileWeightWithGpuInflate
// where this plan's decompress node inflates on GPUs (its "gpus" resolved
// as the node resolves it, against `inventory`), 1 otherwise.
double stream_file_weight(const PipelineConfig& config, const BuildPlan& plan,
                          const std::function<GpuInventory()>& inventory = list_gpus);

// Per file, its weighted bytes: its size on disk, times `stream_weight` for
// a one-stream gzip file. With a weight of 1 no file is opened; otherwise
// at most `max_probed` files are probed, evenly spread over the list, and
// each other file takes the shape of the last probed file before it (a
// crawl's files lie together in the sorted list).
std::vector<uint64_t> file_work(const std::vector<InputFile>& files, double stream_weight, size_t max_probed = 1024);

}  // namespace invidx
