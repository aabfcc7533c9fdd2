// Little-endian integers and length-prefixed strings in and out of index
// files. The writer keeps a running CRC-32 so every file can end with the
// checksum of all its bytes; the reader names the file and the field when
// the bytes run out or hold a bad value (docs/FORMAT.md lists the fields).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "invidx/error.hpp"
#include "store/crc32.hpp"

namespace invidx {

// The context of an error about one file of the index being written.
inline ErrorContext in_file(std::string file) {
    ErrorContext context;
    context.file = std::move(file);
    return context;
}

// Whether finish() fsyncs the file, or its owner syncs it later with others
// (IndexWriter::publish syncs its files all at once: one wait, not one per
// file). `start_writeback`: the owner syncs it later, and finish() asks the
// kernel to start writing it to disk now (Linux: sync_file_range), so that
// little is left to wait for by then and the writer's thread never waits.
enum class SyncOnFinish { yes, no, start_writeback };

// Buffered writer on a POSIX descriptor, so that finish() can fsync: the
// publish protocol needs every byte on disk before the manifest names it.
class BinaryWriter {
public:
    // Creates (truncates) `path`; an invidx::Error names the file on failure.
    explicit BinaryWriter(std::filesystem::path path, SyncOnFinish sync = SyncOnFinish::yes);
    ~BinaryWriter();  // closes without syncing if finish() was not called
    BinaryWriter(const BinaryWriter&) = delete;
    BinaryWriter& operator=(const BinaryWriter&) = delete;

    void u32(uint32_t value);
    void u64(uint64_t value);
    void bytes(std::string_view data);
    void string(std::string_view text);  // u32 byte length, then the bytes

    uint64_t position() const { return written_; }   // bytes written so far
    uint32_t crc() const;                            // of all bytes so far
    // The CRC-32 of each layout::kChecksumBlockBytes block so far, the last
    // one possibly shorter (checksums.bin: readers verify what they read).
    std::vector<uint32_t> block_crcs() const;

    // Appends the u32 CRC-32 of everything written, then syncs (unless
    // SyncOnFinish::no) and closes.
    void finish_with_crc();
    // Syncs (unless SyncOnFinish::no) and closes, no trailing checksum.
    void finish();

    const std::filesystem::path& path() const { return path_; }

private:
    void flush_buffer();

    std::filesystem::path path_;
    int fd_ = -1;
    SyncOnFinish sync_;
    std::string buffer_;
    uint64_t written_ = 0;
    // One CRC-32 pass per byte: the block being written, and the blocks
    // finished so far, combined into the whole file's without rereading.
    Crc32 block_crc_;
    std::vector<uint32_t> finished_blocks_;
    uint32_t finished_crc_ = 0;  // crc32 of the finished blocks (0 = crc32 of nothing)
};

// Little-endian loads from bytes the caller has already bounds-checked: for
// hot paths (a query's dictionary lookups and block tables) that build no
// error context unless a check fails. Compilers turn each into one load.
inline uint32_t load_u32(const char* bytes) {
    uint32_t value = 0;
    for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[i]);
    return value;
}
inline uint64_t load_u64(const char* bytes) {
    uint64_t value = 0;
    for (int i = 7; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[i]);
    return value;
}

// Reads fields out of bytes already in memory (a mapped file).
class VerifiedFile;

class BinaryReader {
public:
    // With `verified`, every field read is first verified against the file's
    // block checksums (data must be a view into that file's bytes).
    BinaryReader(std::string file, std::string_view data, uint64_t position = 0, const VerifiedFile* verified = nullptr)
        : file_(std::move(file)), data_(data), position_(position), verified_(verified) {}

    uint32_t u32(std::string_view field);
    uint64_t u64(std::string_view field);
    std::string_view bytes(uint64_t size, std::string_view field);
    std::string_view string(std::string_view field);  // u32 length + bytes

    void seek(uint64_t position, std::string_view field);
    uint64_t position() const { return position_; }
    uint64_t size() const { return data_.size(); }

    // Throws FormatError("<file>", "field '<field>' (byte N): <problem>").
    [[noreturn]] void fail(std::string_view field, std::string_view problem) const;

    // Reads the 8-byte magic and the u32 version and checks both.
    void expect_header(std::string_view magic, uint32_t version);

private:
    std::string file_;
    std::string_view data_;
    uint64_t position_;
    const VerifiedFile* verified_;
};

// Checks that `data` ends with the CRC-32 of the bytes before it.
void check_trailing_crc(const std::string& file, std::string_view data);

// fsync of a directory: makes the names created or renamed in it durable.
void sync_directory(const std::filesystem::path& directory);

}  // namespace invidx
