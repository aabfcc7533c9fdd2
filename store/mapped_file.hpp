// A whole file mapped read-only: index files are read in place, never copied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace invidx {

class MappedFile {
public:
    MappedFile() = default;
    // Throws FormatError naming `display_name` when the file cannot be opened.
    MappedFile(const std::filesystem::path& path, const std::string& display_name);
    ~MappedFile();
    MappedFile(MappedFile&& other) noexcept;
    MappedFile& operator=(MappedFile&& other) noexcept;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }

private:
    void release() noexcept;

    void* data_ = nullptr;
    size_t size_ = 0;
};

}  // namespace invidx
