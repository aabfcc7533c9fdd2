// A mapped index file whose bytes are verified on first use, block by
// block, against the CRC-32s that checksums.bin holds for it. Opening an
// index then costs what it reads, not what it holds: a query that reads
// three blocks of a 100 GB file checksums three blocks. Every read of the
// file's bytes goes through check() or range(); a block is verified once
// (a bit per block, set atomically, so readers on many threads share it).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "store/mapped_file.hpp"

namespace invidx {

// One block that does not match its checksum.
struct DamagedBlock {
    uint64_t block = 0;
    uint64_t first_byte = 0;
    uint64_t last_byte = 0;  // inclusive
};

class VerifiedFile {
public:
    // Blocks of `block_bytes` (a power of two) verified lazily against
    // `block_crcs`, one per block, the last block possibly shorter.
    VerifiedFile(MappedFile file, std::string name, uint32_t block_bytes, std::vector<uint32_t> block_crcs);
    // Every byte already verified by the caller (an index written before
    // block checksums, whose files are checked whole at open).
    VerifiedFile(MappedFile file, std::string name);
    VerifiedFile(const VerifiedFile&) = delete;
    VerifiedFile& operator=(const VerifiedFile&) = delete;

    const std::string& name() const { return name_; }  // "<dir>/<relative>", for errors
    uint64_t size() const { return bytes_.size(); }
    bool lazy() const { return !block_crcs_.empty(); }

    // The whole file, NOT verified: for bounds and offsets only. Interpret
    // bytes only after check() (or through range()).
    std::string_view unchecked_bytes() const { return bytes_; }

    // Verifies every block `part` (a view into unchecked_bytes()) touches;
    // a damaged block is a FormatError naming the file, the block and its bytes.
    void check(std::string_view part) const {
        if (part.empty() || block_crcs_.empty()) return;
        const uint64_t begin = static_cast<uint64_t>(part.data() - bytes_.data());
        const uint64_t last = (begin + part.size() - 1) >> block_shift_;
        for (uint64_t block = begin >> block_shift_; block <= last; ++block) {
            if ((verified_[block / 64].load(std::memory_order_acquire) & (uint64_t{1} << (block % 64))) == 0) verify_block(block);
        }
    }
    // Bytes [offset, offset + length), verified; past the end is a FormatError.
    std::string_view range(uint64_t offset, uint64_t length) const;

    // Verifies every block (throws at the first damaged one).
    void verify_all() const { check(bytes_); }
    // Verifies every block not verified yet and returns the damaged ones,
    // without throwing (invidx check: every damaged block, not the first).
    std::vector<DamagedBlock> damaged_blocks(uint64_t first_block, uint64_t end_block) const;
    uint64_t block_count() const { return block_crcs_.size(); }
    uint32_t block_bytes() const { return uint32_t{1} << block_shift_; }

    // Bytes checksummed so far by this file's lazy verification.
    uint64_t bytes_verified() const { return bytes_verified_.load(std::memory_order_relaxed); }

private:
    void verify_block(uint64_t block) const;
    bool block_matches(uint64_t block) const;  // checksums it; counts the bytes
    DamagedBlock describe(uint64_t block) const;

    MappedFile file_;
    std::string_view bytes_;
    std::string name_;
    unsigned block_shift_ = 16;
    std::vector<uint32_t> block_crcs_;
    std::unique_ptr<std::atomic<uint64_t>[]> verified_;  // a bit per block
    mutable std::atomic<uint64_t> bytes_verified_{0};
};

}  // namespace invidx
