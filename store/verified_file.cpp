#include "store/verified_file.hpp"

#include <bit>

#include "invidx/error.hpp"
#include "store/crc32.hpp"

namespace invidx {

VerifiedFile::VerifiedFile(MappedFile file, std::string name, uint32_t block_bytes, std::vector<uint32_t> block_crcs)
    : file_(std::move(file)), bytes_(file_.bytes()), name_(std::move(name)), block_crcs_(std::move(block_crcs)) {
    ensure(std::has_single_bit(block_bytes), name_ + ": block size must be a power of two");
    block_shift_ = static_cast<unsigned>(std::countr_zero(block_bytes));
    ensure(block_crcs_.size() == (bytes_.size() + block_bytes - 1) / block_bytes,
           name_ + ": " + std::to_string(block_crcs_.size()) + " block checksums for " + std::to_string(bytes_.size()) + " bytes");
    const size_t words = (block_crcs_.size() + 63) / 64;
    verified_ = std::make_unique<std::atomic<uint64_t>[]>(words);
    for (size_t i = 0; i < words; ++i) verified_[i].store(0, std::memory_order_relaxed);
}

VerifiedFile::VerifiedFile(MappedFile file, std::string name)
    : file_(std::move(file)), bytes_(file_.bytes()), name_(std::move(name)) {}

std::string_view VerifiedFile::range(uint64_t offset, uint64_t length) const {
    if (offset > bytes_.size() || length > bytes_.size() - offset) {
        throw FormatError(name_, "bytes " + std::to_string(offset) + "+" + std::to_string(length) +
                                     " run past the end of the file (" + std::to_string(bytes_.size()) + " bytes)");
    }
    const auto part = bytes_.substr(offset, length);
    check(part);
    return part;
}

DamagedBlock VerifiedFile::describe(uint64_t block) const {
    const uint64_t first = block << block_shift_;
    const uint64_t end = std::min<uint64_t>(bytes_.size(), first + block_bytes());
    return {block, first, end - 1};
}

bool VerifiedFile::block_matches(uint64_t block) const {
    const auto [index, first, last] = describe(block);
    bytes_verified_.fetch_add(last - first + 1, std::memory_order_relaxed);
    return crc32(bytes_.substr(first, last - first + 1)) == block_crcs_[index];
}

void VerifiedFile::verify_block(uint64_t block) const {
    if (!block_matches(block)) {
        const auto damaged = describe(block);
        throw FormatError(name_, "block " + std::to_string(block) + " (bytes " + std::to_string(damaged.first_byte) + "-" +
                                     std::to_string(damaged.last_byte) +
                                     ") does not match its CRC-32 in checksums.bin; the file is damaged");
    }
    // Two threads may verify the same block at once: both set the same bit.
    verified_[block / 64].fetch_or(uint64_t{1} << (block % 64), std::memory_order_release);
}

std::vector<DamagedBlock> VerifiedFile::damaged_blocks(uint64_t first_block, uint64_t end_block) const {
    std::vector<DamagedBlock> damaged;
    end_block = std::min<uint64_t>(end_block, block_crcs_.size());
    for (uint64_t block = first_block; block < end_block; ++block) {
        if ((verified_[block / 64].load(std::memory_order_acquire) & (uint64_t{1} << (block % 64))) != 0) continue;
        if (block_matches(block)) {
            verified_[block / 64].fetch_or(uint64_t{1} << (block % 64), std::memory_order_release);
        } else {
            damaged.push_back(describe(block));
        }
    }
    return damaged;
}

}  // namespace invidx
