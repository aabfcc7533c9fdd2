#include "nodes/decompress/file_byte_source.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "invidx/error.hpp"

namespace invidx {

FileByteSource::FileByteSource(std::string path, size_t chunk_bytes, uint64_t start)
    : path_(std::move(path)), buffer_(chunk_bytes > 0 ? chunk_bytes : 1), offset_(start) {
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
        throw Error(std::string("cannot open input: ") + std::strerror(errno),
                    ErrorContext{.node = "decompress", .file = path_, .record = std::nullopt, .byte_offset = std::nullopt});
    }
    if (start > 0 && ::lseek(fd_, static_cast<off_t>(start), SEEK_SET) < 0) {
        const std::string why = std::strerror(errno);
        ::close(fd_);
        throw Error("cannot seek in input: " + why,
                    ErrorContext{.node = "decompress", .file = path_, .record = std::nullopt, .byte_offset = start});
    }
    (void)::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
}

FileByteSource::~FileByteSource() {
    if (fd_ >= 0) ::close(fd_);
}

std::string_view FileByteSource::next() {
    for (;;) {
        const ssize_t n = ::read(fd_, buffer_.data(), buffer_.size());
        if (n >= 0) {
            offset_ += static_cast<uint64_t>(n);
            return {buffer_.data(), static_cast<size_t>(n)};
        }
        if (errno == EINTR) continue;
        throw Error(std::string("read failed: ") + std::strerror(errno),
                    ErrorContext{.node = "decompress", .file = path_, .record = std::nullopt, .byte_offset = offset_});
    }
}

}  // namespace invidx
