// A ByteSource that reads a file by path in fixed-size chunks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstddef>
#include <string>
#include <vector>

#include "nodes/decompress/byte_source.hpp"

namespace invidx {

class FileByteSource final : public ByteSource {
public:
    // Opens `path` to read from byte `start` on; throws invidx::Error naming
    // it when that fails.
    explicit FileByteSource(std::string path, size_t chunk_bytes = size_t{1} << 20, uint64_t start = 0);
    ~FileByteSource() override;
    FileByteSource(const FileByteSource&) = delete;
    FileByteSource& operator=(const FileByteSource&) = delete;

    std::string_view next() override;

private:
    std::string path_;
    std::vector<char> buffer_;
    int fd_ = -1;
    uint64_t offset_ = 0;
};

}  // namespace invidx
