// Turns the input paths of a pipeline (files, directories, glob patterns) into
// the collection's file list (CONTENT.md §1-2): every file of every spec together, in
// byte-wise order of the full path, without duplicates. The position in that
// list is the file's ordinal, and document ids follow it.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "invidx/input_format.hpp"
#include "invidx/messages.hpp"

namespace invidx {

// One input path of the pipeline: a file, a directory (walked recursively) or
// a glob(3) pattern. `format` names an input format (invidx/input_format.hpp),
// or is "auto" to detect each file's from its path.
struct InputSpec {
    std::string path;
    std::string format{kAutoInputFormat};
};

// Maps a file's path to its format's name; the engine passes
// invidx::detect_format (nodes/frame/framer.hpp), the table's rule.
using FormatDetector = std::function<std::string(std::string_view)>;

// Expands `specs` into the sorted file list. Names are relative to each spec's
// root: a directory spec's files are named relative to the directory, a file
// (or glob match) by its file name; a directory matched by a glob is named
// relative to its parent, so its own name stays in the names. Directory
// symlinks are followed, each directory at most once (no loops); entries that
// are not regular files are skipped. Throws invidx::Error when a spec matches
// nothing ("input not found: <path>") or a file or directory cannot be read.
std::vector<InputFile> expand_inputs(const std::vector<InputSpec>& specs,
                                     const FormatDetector& detect_format);

}  // namespace invidx
