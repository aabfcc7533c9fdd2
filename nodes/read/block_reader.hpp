// Reads one input file in fixed-size blocks of its on-disk (still compressed)
// bytes. Reads of all files go through one ReadScheduler, so the disk serves
// one sequential read at a time, as in Wei & JaJa's read scheduler: parallel
// readers on one disk only add seeks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>

#include "invidx/messages.hpp"

namespace invidx {

// Serializes reads: whoever holds the lock is the only one reading.
class ReadScheduler {
public:
    std::unique_lock<std::mutex> acquire() { return std::unique_lock<std::mutex>(mutex_); }

    // The scheduler every BlockReader uses unless given another one.
    static ReadScheduler& process_wide();

private:
    std::mutex mutex_;
};

inline constexpr size_t kDefaultReadBlockBytes = size_t{4} << 20;

// Streams a file as RawBlocks; only one block is in memory per call, so files
// larger than memory are fine. An empty file gives one empty block with
// first = last = true.
class BlockReader {
public:
    // Opens the file; throws invidx::Error naming it when it cannot be opened.
    explicit BlockReader(const InputFile& file, size_t block_bytes = kDefaultReadBlockBytes,
                         ReadScheduler& scheduler = ReadScheduler::process_wide());
    ~BlockReader();
    BlockReader(const BlockReader&) = delete;
    BlockReader& operator=(const BlockReader&) = delete;

    // Fills `block` (file_ordinal, file_offset, bytes, first, last; the lease is
    // left alone) with the next block. Returns false once the last block was
    // returned. Throws invidx::Error naming the file and offset on I/O errors.
    bool next(RawBlock& block);

    bool done() const { return done_; }
    uint64_t bytes_read() const { return offset_; }

private:
    InputFile file_;
    size_t block_bytes_;
    ReadScheduler& scheduler_;
    int fd_ = -1;
    uint64_t size_at_open_ = 0;
    bool size_known_ = false;  // a regular file: a size at open above 0 bounds what is read
    uint64_t offset_ = 0;
    bool done_ = false;
};

}  // namespace invidx
