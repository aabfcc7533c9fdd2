// The directories an IndexWriter makes beside its final directory, and what a
// later writer does with those an earlier one left behind.
//
//   <final>.tmp-<pid>-<n>  a build in progress; after publishing by exchange,
//                          the old index on its way out
//   <final>.old-<pid>-<n>  the old index moved aside while publishing by two
//                          renames (docs/FORMAT.md, "Publish protocol")
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace invidx {

struct SiblingDirectory {
    std::filesystem::path path;
    std::string tag;  // "tmp" or "old"
    long pid = 0;     // the process that made it
};

// "<final_dir>.<tag>-<this pid>-<n>", unique per process and call; beside
// final_dir so that renames stay within one file system (and so atomic).
std::filesystem::path sibling_path(const std::filesystem::path& final_dir, const char* tag);

// Every "<final_dir>.tmp-<pid>-<n>" and "<final_dir>.old-<pid>-<n>" directory
// there is (symbolic links by such names are not a writer's and are left).
std::vector<SiblingDirectory> find_siblings(const std::filesystem::path& final_dir);

// Call only while holding final_dir's OutputLock: then no other writer is at
// work on final_dir, and every sibling is a leftover of one that was killed.
// If final_dir is missing and an "old" sibling holds a complete index (a
// writer killed between its two renames), that index is renamed back to
// final_dir; every other sibling is removed. Each action is one line to
// `notice`. A restore that fails is an invidx::Error saying what to rename.
void clean_up_after_earlier_writers(const std::filesystem::path& final_dir,
                                    const std::function<void(const std::string&)>& notice);

// Removes an index directory, manifest.json first: a removal cut short never
// leaves something that looks like a complete index. A symbolic link is
// removed itself, never what it points at.
void remove_index_directory(const std::filesystem::path& directory);

}  // namespace invidx
