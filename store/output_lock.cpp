#include "store/output_lock.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <thread>
#include <unistd.h>

#include "invidx/error.hpp"

namespace invidx {
namespace {

std::string read_holder(int fd) {
    // The holder writes its id right after locking: give it a moment.
    for (int attempt = 0; attempt < 20; ++attempt) {
        char buffer[32] = {};
        const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
        std::string text(buffer, n > 0 ? static_cast<size_t>(n) : 0);
        while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
        if (!text.empty()) return text;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return "unknown";
}

}  // namespace

std::filesystem::path OutputLock::path_for(const std::filesystem::path& final_dir) {
    return std::filesystem::path(final_dir.string() + ".lock");
}

OutputLock::OutputLock(const std::filesystem::path& final_dir) : path_(path_for(final_dir)) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
        throw Error(std::string("cannot open the lock file: ") + std::strerror(errno),
                    ErrorContext{.node = "", .file = path_.string(), .record = {}, .byte_offset = {}});
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        const int error = errno;
        const std::string holder = error == EWOULDBLOCK ? read_holder(fd_) : "";
        ::close(fd_);
        fd_ = -1;
        if (error == EWOULDBLOCK)
            throw Error("another build is writing " + final_dir.string() + ": " + path_.string() +
                        " is held by process " + holder);
        throw Error(std::string("cannot lock: ") + std::strerror(error),
                    ErrorContext{.node = "", .file = path_.string(), .record = {}, .byte_offset = {}});
    }
    const std::string pid = std::to_string(::getpid()) + "\n";
    // Only informative (the flock is the lock), so a failed write is no error.
    const bool written = ::ftruncate(fd_, 0) == 0 && ::pwrite(fd_, pid.data(), pid.size(), 0) > 0;
    (void)written;
}

OutputLock::~OutputLock() {
    if (fd_ >= 0) ::close(fd_);  // drops the flock
}

}  // namespace invidx
