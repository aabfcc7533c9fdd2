#include "nodes/read/block_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "invidx/error.hpp"

namespace invidx {

ReadScheduler& ReadScheduler::process_wide() {
    static ReadScheduler scheduler;
    return scheduler;
}

namespace {

ErrorContext read_context(const InputFile& file, std::optional<uint64_t> offset = std::nullopt) {
    return ErrorContext{.node = "read", .file = file.path, .record = std::nullopt, .byte_offset = offset};
}

}  // namespace

BlockReader::BlockReader(const InputFile& file, size_t block_bytes, ReadScheduler& scheduler)
    : file_(file), block_bytes_(block_bytes), scheduler_(scheduler) {
    ensure(block_bytes_ > 0, "read block size must be positive", read_context(file_));
    fd_ = ::open(file_.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw Error(std::string("cannot open input: ") + std::strerror(errno), read_context(file_));
    struct stat info {};
    if (::fstat(fd_, &info) != 0) {
        const int error = errno;
        ::close(fd_);
        throw Error(std::string("cannot stat input: ") + std::strerror(error), read_context(file_));
    }
    size_at_open_ = static_cast<uint64_t>(info.st_size);
    size_known_ = S_ISREG(info.st_mode);
    // Advice only: a failure here changes speed, never results.
    (void)::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
}

BlockReader::~BlockReader() {
    if (fd_ >= 0) ::close(fd_);
}

bool BlockReader::next(RawBlock& block) {
    if (done_) return false;
    block.file_ordinal = file_.ordinal;
    block.file_offset = offset_;
    block.first = offset_ == 0;
    block.end_of_input = false;
    // The one copy of the data: read(2) straight into the block's buffer,
    // which holds no more than a regular file has left of its size when it
    // was opened: a whole block's buffer, zero-filled and faulted in for each
    // small file, cost more than reading it (a directory of small pages). A
    // size of 0 says nothing (procfs files hold bytes): a whole block, as
    // for pipes.
    const size_t wanted = size_known_ && size_at_open_ > offset_
                              ? static_cast<size_t>(std::min<uint64_t>(block_bytes_, size_at_open_ - offset_))
                              : block_bytes_;
    block.bytes.resize(wanted);
    size_t filled = 0;
    {
        const auto turn = scheduler_.acquire();
        while (filled < wanted) {
            const ssize_t n = ::read(fd_, block.bytes.data() + filled, wanted - filled);
            if (n < 0) {
                if (errno == EINTR) continue;
                const int error = errno;
                block.bytes.clear();
                throw Error(std::string("read failed: ") + std::strerror(error),
                            read_context(file_, offset_ + filled));
            }
            if (n == 0) break;
            filled += static_cast<size_t>(n);
        }
    }
    block.bytes.resize(filled);
    offset_ += filled;
    // A short read is the end; so is reaching the size the file had when
    // opened, which sets `last` on the final full block without one more
    // read(2) that would return nothing.
    block.last = filled < wanted || offset_ >= size_at_open_;
    if (block.last) {
        done_ = true;
        ::close(fd_);
        fd_ = -1;
    }
    return true;
}

}  // namespace invidx
