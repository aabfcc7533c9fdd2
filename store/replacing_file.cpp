#include "store/replacing_file.hpp"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <streambuf>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "invidx/error.hpp"
#include "store/binary_io.hpp"
#include "store/durable_sync.hpp"

namespace invidx {
namespace {

namespace fs = std::filesystem;

std::atomic<uint64_t> next_partial_number{0};

ErrorContext naming(const fs::path& file) {
    return ErrorContext{.node = "", .file = file.string(), .record = {}, .byte_offset = {}};
}

}  // namespace

// A buffered stream onto the partial file's descriptor; the first failed
// write's errno is kept for commit()'s message.
class ReplacingFile::Buffer : public std::streambuf {
public:
    explicit Buffer(int fd) : fd_(fd), bytes_(1 << 20) { setp(bytes_.data(), bytes_.data() + bytes_.size()); }
    ~Buffer() override {
        if (fd_ >= 0) ::close(fd_);
    }

    int fd() const { return fd_; }
    int error() const { return error_; }
    // Closes the descriptor; false (errno in error()) when close reports a
    // failed write-back.
    bool close() {
        const int fd = fd_;
        fd_ = -1;
        if (::close(fd) != 0 && error_ == 0) error_ = errno;
        return error_ == 0;
    }

protected:
    int overflow(int c) override {
        if (!drain()) return traits_type::eof();
        if (c != traits_type::eof()) {
            *pptr() = static_cast<char>(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    int sync() override { return drain() ? 0 : -1; }

private:
    bool drain() {
        const char* data = pbase();
        size_t left = static_cast<size_t>(pptr() - pbase());
        while (left > 0 && error_ == 0) {
            const ssize_t n = ::write(fd_, data, left);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                error_ = n < 0 ? errno : EIO;
                break;
            }
            data += n;
            left -= static_cast<size_t>(n);
        }
        setp(bytes_.data(), bytes_.data() + bytes_.size());
        return error_ == 0;
    }

    int fd_;
    int error_ = 0;
    std::vector<char> bytes_;
};

ReplacingFile::ReplacingFile(fs::path target) : target_(std::move(target)) {
    struct stat existing {};
    const bool exists = ::stat(target_.c_str(), &existing) == 0;
    if (exists && S_ISDIR(existing.st_mode)) throw Error("cannot write the file: it is a directory", naming(target_));
    partial_ = fs::path(target_.string() + ".partial-" + std::to_string(::getpid()) + "-" +
                        std::to_string(next_partial_number++));
    const int fd = ::open(partial_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) throw Error(std::string("cannot create the file: ") + std::strerror(errno), naming(partial_));
    // A replaced file keeps who may read it.
    if (exists) (void)::fchmod(fd, existing.st_mode & 07777);
    buffer_ = std::make_unique<Buffer>(fd);
    stream_ = std::make_unique<std::ostream>(buffer_.get());
}

ReplacingFile::~ReplacingFile() {
    stream_.reset();
    buffer_.reset();
    if (!committed_) ::unlink(partial_.c_str());
}

std::ostream& ReplacingFile::stream() { return *stream_; }

void ReplacingFile::fail(const std::string& what, int error) {
    stream_.reset();
    buffer_.reset();
    ::unlink(partial_.c_str());
    committed_ = true;  // nothing left to remove
    throw Error(what + ": " + std::strerror(error) + " (nothing was replaced)", naming(target_));
}

void ReplacingFile::throw_if_write_failed() {
    if (!stream_) return;
    stream_->flush();
    if (!*stream_ || buffer_->error() != 0) fail("cannot write the file", buffer_->error() != 0 ? buffer_->error() : EIO);
}

void ReplacingFile::commit() {
    ensure(!committed_, "the file was committed or abandoned already", naming(target_));
    throw_if_write_failed();
    if (timed_fsync(buffer_->fd()) != 0) fail("cannot sync the file", errno);
    if (!buffer_->close()) fail("cannot write the file", buffer_->error());
    if (::rename(partial_.c_str(), target_.c_str()) != 0) fail("cannot rename the new file into place", errno);
    committed_ = true;
    const fs::path parent = target_.parent_path().empty() ? fs::path(".") : target_.parent_path();
    sync_directory(parent);
}

}  // namespace invidx
