// Moves the run files of one complete index into another index being
// written, renumbered and given a docid base, without reading or rewriting
// their lists: a partition-and-index cluster rank's parts become runs of the
// joined index this way (docs/FORMAT.md, "Cluster builds"). A run file
// names its run in its header, so the header's run field is patched in
// place; the blocks that change (the first, and those holding the trailing
// CRC-32) are read, verified against the part's checksums.bin and
// rewritten, and the file's CRC-32s are recombined from the block CRC-32s
// (crc32_concat), so the other blocks are never read.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <vector>

#include "store/index_writer.hpp"

namespace invidx {

// One run of the part: its number there, and its slots' postings per indexer
// (IndexReader::run_slot_postings).
struct PartRun {
    uint32_t part_run = 0;
    std::map<uint32_t, std::vector<uint32_t>> slots;
};

// Every run of the complete index at `part_dir` (its manifest's order, with
// its runs' slots read from the part while it is still open), moved into
// index_dir/runs/ as runs first_run, first_run + 1, ..., each with docid
// base `docid_base` (the part's docid 0 in the joined index; the part's own
// bases must all be 0). Returns what the joining IndexWriter::adopt_run
// needs. The part is no longer a complete index afterwards. Throws
// FormatError when a block read does not match the part's checksums.bin.
// The renumbered runs are not synced: the caller syncs all it moved at once
// (sync_files), before the joined index names them.
std::vector<WrittenRun> adopt_part_runs(const std::filesystem::path& part_dir, const std::vector<PartRun>& runs,
                                        uint32_t first_run, uint64_t docid_base, const std::filesystem::path& index_dir);

}  // namespace invidx
