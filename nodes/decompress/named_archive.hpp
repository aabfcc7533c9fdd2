// The archive a file's name declares, for what input decoding accepts
// (docs/PIPELINE.md, "Input files"): a leading block of zeros is an (empty)
// tar only when the name says tar, and a file so named must be that archive.
#pragma once

#include <cstdint>
#include <string_view>

namespace invidx {

enum class NamedArchive : uint8_t { none, tar, zip };

// ".tar", ".tgz" or ".zip" among the container and compression suffixes
// that format detection strips (kContainerSuffixes, invidx/input_format.hpp),
// ASCII case ignored; the outermost one counts ("a.warc.tar.gz": tar).
NamedArchive archive_named_by_file(std::string_view path);

}  // namespace invidx
