// A word list read from a file (analysis.stopwords {"file": PATH}): one word
// a line, '#' starts a comment line, trailing blanks dropped.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace invidx {

// The largest word list file read (docs/PIPELINE.md): far above any real
// stopword list, small enough that a wrong path cannot exhaust memory.
inline constexpr uint64_t kMaxWordListFileBytes = uint64_t{16} << 20;

// The words of `path`; a ConfigError at `pointer` naming the file when it
// is not a regular file (a directory, a FIFO, a device such as /dev/zero),
// is larger than kMaxWordListFileBytes, cannot be read, or has a line that
// is not UTF-8 (naming the line and byte).
std::vector<std::string> read_word_list_file(const std::string& path, const std::string& pointer);

}  // namespace invidx
