#include "store/mapped_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "invidx/error.hpp"

namespace invidx {

MappedFile::MappedFile(const std::filesystem::path& path, const std::string& display_name) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw FormatError(display_name, std::string("cannot open: ") + std::strerror(errno));
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
        const std::string problem = std::strerror(errno);
        ::close(fd);
        throw FormatError(display_name, "cannot stat: " + problem);
    }
    size_ = static_cast<size_t>(info.st_size);
    if (size_ > 0) {
        void* mapped = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
        if (mapped == MAP_FAILED) {
            const std::string problem = std::strerror(errno);
            ::close(fd);
            throw FormatError(display_name, "cannot map: " + problem);
        }
        data_ = mapped;
    }
    ::close(fd);
}

MappedFile::~MappedFile() { release(); }

MappedFile::MappedFile(MappedFile&& other) noexcept : data_(other.data_), size_(other.size_) {
    other.data_ = nullptr;
    other.size_ = 0;
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
    if (this != &other) {
        release();
        data_ = other.data_;
        size_ = other.size_;
        other.data_ = nullptr;
        other.size_ = 0;
    }
    return *this;
}

void MappedFile::release() noexcept {
    if (data_ != nullptr) ::munmap(data_, size_);
    data_ = nullptr;
    size_ = 0;
}

}  // namespace invidx
