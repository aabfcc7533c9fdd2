#include "pipelines/cluster/positioned_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include "invidx/error.hpp"

namespace invidx {

PositionedFile::PositionedFile(std::filesystem::path path, int flags)
    : path_(std::move(path)), fd_(::open(path_.c_str(), flags, 0644)) {
    if (fd_ < 0) throw Error("cannot open " + path_.string() + ": " + std::strerror(errno));
}

PositionedFile::~PositionedFile() {
    if (fd_ >= 0) ::close(fd_);
}

void PositionedFile::write_at(uint64_t offset, std::string_view bytes) {
    while (!bytes.empty()) {
        const ssize_t n = ::pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw Error("cannot write " + path_.string() + ": " + std::strerror(errno));
        bytes.remove_prefix(static_cast<size_t>(n));
        offset += static_cast<uint64_t>(n);
    }
}

void PositionedFile::close() {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw Error("cannot close " + path_.string() + ": " + std::strerror(errno));
}

}  // namespace invidx
