#include "graph/word_list_file.hpp"

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "graph/utf8_check.hpp"
#include "invidx/error.hpp"

namespace invidx {
namespace {

// Closes the descriptor however reading ends.
struct FileDescriptor {
    int fd;
    ~FileDescriptor() {
        if (fd >= 0) ::close(fd);
    }
};

}  // namespace

std::vector<std::string> read_word_list_file(const std::string& path, const std::string& pointer) {
    const auto failure = [&](const std::string& why) {
        return ConfigError(pointer, "stopword file '" + path + "': " + why);
    };
    // O_NONBLOCK: opening a FIFO must not wait for a writer; the type is
    // checked on the opened descriptor, so what is read is what was checked.
    const FileDescriptor file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
    if (file.fd < 0) throw failure(std::string("cannot open: ") + std::strerror(errno));
    struct stat status {};
    if (::fstat(file.fd, &status) != 0) throw failure(std::string("cannot stat: ") + std::strerror(errno));
    if (!S_ISREG(status.st_mode))
        throw failure(S_ISDIR(status.st_mode) ? "is a directory, not a file of words" : "is not a regular file");
    if (static_cast<uint64_t>(status.st_size) > kMaxWordListFileBytes)
        throw failure("is " + std::to_string(status.st_size) + " bytes; a stopword file may hold at most " +
                      std::to_string(kMaxWordListFileBytes) + " (16 MiB)");

    // Read at most one byte past the limit, in case the file grows meanwhile.
    std::string text;
    text.resize(static_cast<size_t>(status.st_size) + 1);
    size_t filled = 0;
    for (;;) {
        if (filled == text.size()) {
            if (text.size() > kMaxWordListFileBytes) throw failure("grew past 16 MiB while it was read");
            text.resize(std::min<size_t>(text.size() * 2, kMaxWordListFileBytes + 1));
        }
        const ssize_t got = ::read(file.fd, text.data() + filled, text.size() - filled);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) throw failure(std::string("cannot read: ") + std::strerror(errno));
        if (got == 0) break;
        filled += static_cast<size_t>(got);
    }
    text.resize(filled);

    std::vector<std::string> words;
    size_t line_number = 0;
    for (size_t start = 0; start < text.size();) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        ++line_number;
        if (const auto bad = first_invalid_utf8(line))
            throw failure("line " + std::to_string(line_number) + " (byte " + std::to_string(start + *bad) +
                          "): bytes that are not UTF-8; stop words are UTF-8 text");
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
        if (!line.empty() && line[0] != '#') words.push_back(std::move(line));
        start = end + 1;
    }
    return words;
}

}  // namespace invidx
