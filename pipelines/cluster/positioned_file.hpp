// A file that several ranks of a cluster build write at once, each its own
// byte ranges (pwrite at known offsets, no shared file position), synced
// (sync_files, with the rank's other writes) before the rank reports them
// written.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>

namespace invidx {

class PositionedFile {
public:
    // open(2) flags: O_WRONLY, with O_CREAT | O_TRUNC for the one rank
    // that creates it. An invidx::Error names the file on failure.
    PositionedFile(std::filesystem::path path, int flags);
    ~PositionedFile();  // closes if close() was not called
    PositionedFile(const PositionedFile&) = delete;
    PositionedFile& operator=(const PositionedFile&) = delete;

    void write_at(uint64_t offset, std::string_view bytes);
    void close();  // not synced: the caller syncs it with others (sync_files)

private:
    std::filesystem::path path_;
    int fd_ = -1;
};

}  // namespace invidx
