// What makes the start of a "text" entry binary data rather than text
// (docs/PIPELINE.md, "Input files"): the text framer takes a whole entry as
// one document, so without this check a damaged archive or compressed file
// that no decoder recognized would be indexed as one document of garbage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace invidx {

// How much of an entry's start is looked at: text is told from binary data
// on its first bytes (as `file` and git do), and the rest costs nothing.
inline constexpr size_t kTextCheckBytes = size_t{64} << 10;

struct BinaryData {
    uint64_t byte_offset = 0;  // of the first byte that shows it
    std::string why;
};

// Whether `start` (the first bytes of an entry, up to kTextCheckBytes) is
// binary data: it holds a NUL byte, or more than 1 in 16 of its bytes are
// control characters other than tab, line feed, vertical tab, form feed,
// carriage return and escape. Text in any ASCII-based encoding (UTF-8, the
// ISO-8859 and Windows code pages) has neither; compressed or other binary
// data has both within a few hundred bytes. UTF-16 text counts as binary.
std::optional<BinaryData> find_binary_data(std::string_view start);

}  // namespace invidx
