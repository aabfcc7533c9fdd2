#include "nodes/decompress/zip_directory.hpp"

#include <algorithm>

namespace invidx {
namespace {

// APPNOTE.TXT 4.3.16 and 4.3.12.
constexpr std::string_view kEndSignature = "PK\x05\x06";
constexpr std::string_view kEntrySignature = "PK\x01\x02";
constexpr size_t kEndRecordBytes = 22;
constexpr size_t kMaxCommentBytes = 0xFFFF;
constexpr size_t kEntryBytes = 46;

uint32_t little_endian(std::string_view bytes, size_t at, size_t width) {
    uint32_t value = 0;
    for (size_t i = width; i-- > 0;) value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
    return value;
}

}  // namespace

ZipDirectory read_zip_directory(std::string_view tail, uint64_t tail_offset) {
    ZipDirectory directory;
    if (tail.size() < kEndRecordBytes) return directory;
    // The record is the last thing in the file but for its comment: the
    // last signature whose comment length reaches exactly to the end.
    size_t end = std::string_view::npos;
    const size_t lowest = tail.size() > kEndRecordBytes + kMaxCommentBytes ? tail.size() - kEndRecordBytes - kMaxCommentBytes : 0;
    for (size_t at = tail.size() - kEndRecordBytes + 1; at-- > lowest;) {
        if (tail.compare(at, 4, kEndSignature) == 0 &&
            at + kEndRecordBytes + little_endian(tail, at + 20, 2) == tail.size()) {
            end = at;
            break;
        }
    }
    if (end == std::string_view::npos) return directory;
    const uint32_t count = little_endian(tail, end + 10, 2);
    const uint32_t size = little_endian(tail, end + 12, 4);
    const uint32_t offset = little_endian(tail, end + 16, 4);
    if (count == 0xFFFF || size == 0xFFFFFFFF || offset == 0xFFFFFFFF || offset < tail_offset) {
        directory.status = ZipDirectory::Status::not_checkable;
        return directory;
    }
    const uint64_t start = offset - tail_offset;
    if (start + size > end) {
        directory.status = ZipDirectory::Status::damaged;
        return directory;
    }
    std::string_view entries = tail.substr(start, size);
    for (uint32_t i = 0; i < count; ++i) {
        if (entries.size() < kEntryBytes || entries.compare(0, 4, kEntrySignature) != 0) {
            directory.status = ZipDirectory::Status::damaged;
            return directory;
        }
        const size_t name_bytes = little_endian(entries, 28, 2);
        const size_t entry_bytes = kEntryBytes + name_bytes + little_endian(entries, 30, 2) + little_endian(entries, 32, 2);
        if (entries.size() < entry_bytes) {
            directory.status = ZipDirectory::Status::damaged;
            return directory;
        }
        directory.entries.push_back(
            ZipDirectoryEntry{std::string(entries.substr(kEntryBytes, name_bytes)), little_endian(entries, 42, 4)});
        entries.remove_prefix(entry_bytes);
    }
    directory.status = ZipDirectory::Status::found;
    return directory;
}

}  // namespace invidx
