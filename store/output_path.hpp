// Where a writer really writes: an output path is followed through symbolic
// links before anything is locked, made, renamed or removed, so that a link
// to an index (`ln -s idx-v1 current`) is written through, never replaced,
// and two writers that name one directory by two paths take one lock.
#pragma once

#include <filesystem>

namespace invidx {

// `path` with every symbolic link in it followed, the last component's
// included even where its target does not exist yet (a link to an index
// still to be built); "." and ".." and a trailing "/" removed. A path with no
// link in it comes back as given (lexically normal), so messages name what
// the user typed. Too many levels of links (a loop) is an invidx::Error.
std::filesystem::path resolve_output_path(const std::filesystem::path& path);

// The invidx index (a directory holding manifest.json) that `path` lies in
// or is, after resolving links; empty if none. Files are written beside an
// index, never into one: its files are mapped by readers, and a file
// replaced there leaves the index unreadable.
std::filesystem::path enclosing_index(const std::filesystem::path& path);

}  // namespace invidx
