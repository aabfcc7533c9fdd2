// Pull-based decoding of one input file with libarchive: every compression
// filter libarchive reads (gzip with all members, bzip2, xz, zstd, lz4, ...)
// and the container formats tar (all variants) and zip (streamed); anything
// else is one raw entry. Only these formats are enabled: libarchive's other
// readers (mtree, for one) claim plain text files as archives. A gzip file
// (a .tar.gz, above all) is inflated by GzipStream (igzip where built, every
// member's CRC-32 and ISIZE checked: InflatingSource) and libarchive reads
// its text as if it were not compressed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "nodes/decompress/byte_source.hpp"
#include "invidx/messages.hpp"

struct archive;

namespace invidx {

class InflatingSource;
class PeekedSource;

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
    // Damage that libarchive steps over is an error too (docs/PIPELINE.md,
    // "Input files"): a tar header whose checksum does not match, a header
    // warning other than a name's character set, a zip entry of the central
    // directory that the streamed reader did not find (a damaged local
    // header). A leading block of zeros is an empty tar only when the file's
    // name says tar, and a file named .tar/.tgz/.zip must be that archive.
    // A gzip file's damage (a CRC-32 or length that does not match, a
    // truncated member, trailing bytes other than zero padding) names the
    // file's path and the offset in its inflated text, also when it lies
    // after a tar's end blocks.

private:
    friend struct ArchiveCallbacks;  // libarchive's C callbacks (archive_stream.cpp)
    void open();
    [[noreturn]] void fail(const std::string& what);
    // What the first header says about a file that may not be an archive.
    void check_no_header(int format);
    void check_raw_named_archive();
    // Keeps the end of a zip's raw bytes, for its central directory.
    void keep_zip_tail(std::string_view raw);
    void check_zip_directory();

    ByteSource& source_;
    std::unique_ptr<PeekedSource> peeked_;       // source_, its magic bytes looked at by open()
    std::unique_ptr<InflatingSource> inflated_;  // a gzip file's text, which libarchive then reads
    ByteSource* input_ = nullptr;                // what libarchive reads: peeked_ or inflated_
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
    std::string previous_member_;    // the last member read, to place damage after it

    // Zip check: raw bytes are kept only once they start with a local header.
    enum class ZipTail : uint8_t { undecided, kept, not_zip };
    ZipTail zip_tail_state_ = ZipTail::undecided;
    std::string zip_tail_;           // the last raw bytes of a zip
    uint64_t zip_tail_offset_ = 0;   // of zip_tail_[0] in the file
    std::vector<std::string> zip_headers_read_;  // every entry's name as libarchive read it
};

}  // namespace invidx
