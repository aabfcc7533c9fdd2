#include "store/binary_io.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include "invidx/error.hpp"
#include "store/durable_sync.hpp"
#include "store/index_layout.hpp"
#include "store/verified_file.hpp"

namespace invidx {
namespace {

constexpr size_t kBufferBytes = 1 << 20;

std::string system_message() { return std::strerror(errno); }

}  // namespace

BinaryWriter::BinaryWriter(std::filesystem::path path, SyncOnFinish sync) : path_(std::move(path)), sync_(sync) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error("cannot create file: " + system_message(), in_file(path_.string()));
    buffer_.reserve(kBufferBytes);
}

BinaryWriter::~BinaryWriter() {
    if (fd_ >= 0) ::close(fd_);
}

void BinaryWriter::u32(uint32_t value) {
    char raw[4];
    for (int i = 0; i < 4; ++i) raw[i] = static_cast<char>((value >> (8 * i)) & 0xFFu);
    bytes(std::string_view(raw, 4));
}

void BinaryWriter::u64(uint64_t value) {
    char raw[8];
    for (int i = 0; i < 8; ++i) raw[i] = static_cast<char>((value >> (8 * i)) & 0xFFu);
    bytes(std::string_view(raw, 8));
}

void BinaryWriter::bytes(std::string_view data) {
    for (std::string_view rest = data; !rest.empty();) {
        const uint64_t in_block = written_ % layout::kChecksumBlockBytes;
        const size_t take = static_cast<size_t>(std::min<uint64_t>(rest.size(), layout::kChecksumBlockBytes - in_block));
        block_crc_.update(rest.substr(0, take));
        rest.remove_prefix(take);
        written_ += take;
        if (written_ % layout::kChecksumBlockBytes == 0) {
            finished_blocks_.push_back(block_crc_.value());
            finished_crc_ = crc32_concat(finished_crc_, block_crc_.value(), layout::kChecksumBlockBytes);
            block_crc_ = Crc32();
        }
    }
    if (buffer_.size() + data.size() > kBufferBytes) flush_buffer();
    if (data.size() >= kBufferBytes) {
        buffer_.assign(data);
        flush_buffer();
    } else {
        buffer_.append(data);
    }
}

uint32_t BinaryWriter::crc() const {
    return crc32_concat(finished_crc_, block_crc_.value(), written_ % layout::kChecksumBlockBytes);
}

std::vector<uint32_t> BinaryWriter::block_crcs() const {
    std::vector<uint32_t> crcs = finished_blocks_;
    if (written_ % layout::kChecksumBlockBytes != 0) crcs.push_back(block_crc_.value());
    return crcs;
}

void BinaryWriter::string(std::string_view text) {
    if (text.size() > UINT32_MAX) throw Error("string of " + std::to_string(text.size()) + " bytes is too long", in_file(path_.string()));
    u32(static_cast<uint32_t>(text.size()));
    bytes(text);
}

void BinaryWriter::flush_buffer() {
    size_t done = 0;
    while (done < buffer_.size()) {
        const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw Error("cannot write: " + system_message(), in_file(path_.string()));
        done += static_cast<size_t>(n);
    }
    buffer_.clear();
}

void BinaryWriter::finish_with_crc() {
    const uint32_t checksum = crc();
    u32(checksum);
    finish();
}

void BinaryWriter::finish() {
    flush_buffer();
    if (sync_ == SyncOnFinish::yes && timed_fsync(fd_) != 0)
        throw Error("cannot sync: " + system_message(), in_file(path_.string()));
#if defined(__linux__)
    // Advice: a failure shows in the owner's fsync later, never here.
    if (sync_ == SyncOnFinish::start_writeback) (void)::sync_file_range(fd_, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw Error("cannot close: " + system_message(), in_file(path_.string()));
}

uint32_t BinaryReader::u32(std::string_view field) {
    const auto raw = bytes(4, field);
    uint32_t value = 0;
    for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(raw[static_cast<size_t>(i)]);
    return value;
}

uint64_t BinaryReader::u64(std::string_view field) {
    const auto raw = bytes(8, field);
    uint64_t value = 0;
    for (int i = 7; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(raw[static_cast<size_t>(i)]);
    return value;
}

std::string_view BinaryReader::bytes(uint64_t size, std::string_view field) {
    if (size > data_.size() - position_) {
        fail(field, "needs " + std::to_string(size) + " bytes but the file has " +
                        std::to_string(data_.size() - position_) + " left");
    }
    const auto out = data_.substr(position_, size);
    if (verified_ != nullptr) verified_->check(out);
    position_ += size;
    return out;
}

std::string_view BinaryReader::string(std::string_view field) {
    const uint32_t size = u32(field);
    return bytes(size, field);
}

void BinaryReader::seek(uint64_t position, std::string_view field) {
    if (position > data_.size()) {
        fail(field, "points at byte " + std::to_string(position) + " past the end of the file (" +
                        std::to_string(data_.size()) + " bytes)");
    }
    position_ = position;
}

void BinaryReader::fail(std::string_view field, std::string_view problem) const {
    throw FormatError(file_, "field '" + std::string(field) + "' (byte " + std::to_string(position_) +
                                 "): " + std::string(problem));
}

void BinaryReader::expect_header(std::string_view magic, uint32_t version) {
    const auto found = bytes(magic.size(), "magic");
    if (found != magic) {
        position_ = 0;
        fail("magic", "expected \"" + std::string(magic) + "\"; not an invidx file of this kind");
    }
    const uint32_t found_version = u32("version");
    if (found_version != version) {
        fail("version", "format version " + std::to_string(found_version) + " is not supported (expected " +
                            std::to_string(version) + ")");
    }
}

void check_trailing_crc(const std::string& file, std::string_view data) {
    if (data.size() < 4) throw FormatError(file, "field 'crc32': file of " + std::to_string(data.size()) + " bytes is too short to hold a checksum");
    BinaryReader reader(file, data, data.size() - 4);
    const uint32_t stored = reader.u32("crc32");
    const uint32_t computed = crc32(data.substr(0, data.size() - 4));
    if (stored != computed) {
        throw FormatError(file, "field 'crc32': stored checksum " + std::to_string(stored) +
                                    " does not match the content (" + std::to_string(computed) + "); the file is damaged");
    }
}

void sync_directory(const std::filesystem::path& directory) {
    const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) throw Error("cannot open directory to sync: " + system_message(), in_file(directory.string()));
    const int result = timed_fsync(fd);
    const std::string problem = result != 0 ? system_message() : "";
    ::close(fd);
    if (result != 0) throw Error("cannot sync directory: " + problem, in_file(directory.string()));
}

}  // namespace invidx
