// Pull-based decoding of one input file with libarchive: every compression
// filter libarchive reads (gzip with all members, bzip2, xz, zstd, lz4, ...)
// and the container formats tar (all variants) and zip (streamed); anything
// else is one raw entry. Only these formats are enabled: libarchive's other
// readers (mtree, for one) claim plain text files as archives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "nodes/decompress/byte_source.hpp"
#include "invidx/messages.hpp"

struct archive;

namespace invidx {

class ArchiveStream {
public:
    // Reads `file`'s bytes from `source`, which must outlive the stream.
    // Nothing is read before the first next_entry().
    ArchiveStream(ByteSource& source, InputFile file);
    ~ArchiveStream();
    ArchiveStream(const ArchiveStream&) = delete;
    ArchiveStream& operator=(const ArchiveStream&) = delete;

    // Moves to the next regular entry and names it: the file's name for a
    // plain or compressed file (exactly one entry, even when empty), or
    // "<file name>!<member path>" for a tar/zip member. Directories, links and
    // other non-regular members are skipped. Returns false after the last.
    bool next_entry(std::string& entry_name);

    // Reads up to `n` decompressed bytes of the current entry; 0 at its end.
    size_t read(char* buffer, size_t n);

    uint32_t entry_index() const { return entry_index_; }      // 0-based, of the current entry
    uint64_t entry_offset() const { return entry_offset_; }    // bytes of it read so far

    // Damaged or truncated input throws invidx::Error with file = the input's
    // path (plus "!<member>" inside an archive), byte_offset = entry_offset()
    // and libarchive's message. Errors thrown by the ByteSource pass through.

private:
    friend struct ArchiveCallbacks;  // libarchive's C callbacks (archive_stream.cpp)
    void open();
    [[noreturn]] void fail(const std::string& what);

    ByteSource& source_;
    InputFile file_;
    struct archive* archive_ = nullptr;
    std::exception_ptr source_error_;
    std::string error_file_;         // file (and member) named in errors
    uint32_t entry_index_ = 0;
    uint64_t entry_offset_ = 0;
    bool entered_ = false;           // next_entry() returned true at least once
    bool empty_input_ = false;       // the synthesized entry of an empty input
    bool finished_ = false;
    bool failed_ = false;
};

}  // namespace invidx
