// A zip archive's central directory, read from the end of the file. The
// streamed zip reader (libarchive's zip_streamable) finds entries by
// scanning for local headers and silently steps over one whose header is
// damaged; the directory lists every entry, so comparing the two finds the
// entries that were lost (archive_stream.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace invidx {

struct ZipDirectoryEntry {
    std::string name;
    uint64_t local_header_offset = 0;
};

struct ZipDirectory {
    enum class Status {
        found,          // entries holds the whole directory
        no_end_record,  // no end-of-central-directory record: truncated or damaged
        damaged,        // the record or a directory entry does not parse
        not_checkable,  // zip64, or the directory starts before `tail`
    };
    Status status = Status::no_end_record;
    std::vector<ZipDirectoryEntry> entries;
};

// Reads the directory from `tail`, the last bytes of the file, whose first
// byte is at `tail_offset` of the file.
ZipDirectory read_zip_directory(std::string_view tail, uint64_t tail_offset);

}  // namespace invidx
