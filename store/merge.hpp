// The optional post-processing step of Wei & JaJa (§III.F): each term's
// partial lists, one per run, are combined into a single list, so a query
// reads one contiguous list per term. The result is a new index with one
// run file, written beside the old one and renamed over it atomically
// (IndexWriter's publish protocol); its content and CIFF export are unchanged.
#pragma once

#include <filesystem>

namespace invidx {

// Holds the merged run's compressed lists in memory while it writes them
// (about the size of the index's run files).
void merge_runs(const std::filesystem::path& index_dir);

}  // namespace invidx
