// Test inputs written with libarchive's writer: single compressed files
// (format "raw" under a filter), tar and zip archives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <archive.h>
#include <archive_entry.h>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace invidx::testing {

namespace detail {

inline la_ssize_t append_to_string(struct archive*, void* target, const void* bytes, size_t size) {
    static_cast<std::string*>(target)->append(static_cast<const char*>(bytes), size);
    return static_cast<la_ssize_t>(size);
}

inline void check(int status, struct archive* archive, const char* what) {
    if (status < ARCHIVE_WARN) {
        const std::string message = std::string(what) + ": " +
                                    (archive_error_string(archive) ? archive_error_string(archive) : "?");
        archive_write_free(archive);
        throw std::runtime_error(message);
    }
}

}  // namespace detail

struct Member {
    std::string path;
    std::string contents;
    unsigned filetype = AE_IFREG;  // AE_IFDIR / AE_IFLNK for non-regular members
};

// Writes `members` in `format` (ARCHIVE_FORMAT_RAW, ARCHIVE_FORMAT_TAR_PAX_RESTRICTED,
// ARCHIVE_FORMAT_ZIP, ...) under compression `filter` (ARCHIVE_FILTER_NONE, _GZIP, ...).
inline std::string write_archive(int format, int filter, const std::vector<Member>& members) {
    std::string out;
    struct archive* archive = archive_write_new();
    detail::check(archive_write_set_format(archive, format), archive, "set format");
    detail::check(archive_write_add_filter(archive, filter), archive, "add filter");
    // No padding after the data: the files must be exactly what a compressor writes.
    detail::check(archive_write_set_bytes_in_last_block(archive, 1), archive, "block size");
    detail::check(archive_write_open(archive, &out, nullptr, &detail::append_to_string, nullptr), archive, "open");
    for (const auto& member : members) {
        struct archive_entry* entry = archive_entry_new();
        archive_entry_set_pathname(entry, member.path.c_str());
        archive_entry_set_filetype(entry, member.filetype);
        archive_entry_set_perm(entry, member.filetype == AE_IFDIR ? 0755 : 0644);
        if (member.filetype == AE_IFLNK) archive_entry_set_symlink(entry, member.contents.c_str());
        const bool has_data = member.filetype == AE_IFREG;
        archive_entry_set_size(entry, has_data ? static_cast<la_int64_t>(member.contents.size()) : 0);
        detail::check(archive_write_header(archive, entry), archive, "header");
        if (has_data && !member.contents.empty()) {
            const la_ssize_t written = archive_write_data(archive, member.contents.data(), member.contents.size());
            if (written != static_cast<la_ssize_t>(member.contents.size())) detail::check(ARCHIVE_FATAL, archive, "data");
        }
        archive_entry_free(entry);
    }
    detail::check(archive_write_close(archive), archive, "close");
    archive_write_free(archive);
    return out;
}

// One file compressed with `filter` (a .gz, .bz2, .xz, .zst or .lz4 file).
inline std::string compress(std::string_view contents, int filter) {
    return write_archive(ARCHIVE_FORMAT_RAW, filter, {Member{"data", std::string(contents)}});
}

// Deterministic text-like bytes, varied enough that compression is not trivial.
inline std::string sample_text(size_t size, unsigned seed = 1) {
    static constexpr std::string_view words[] = {"alpha ", "beta ", "gamma\n", "delta ", "<p>", "epsilon ",
                                                 "zeta\t", "eta ", "theta ", "iota\r\n", "kappa ", "lambda "};
    std::string text;
    uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
    while (text.size() < size) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        text += words[(state >> 33) % std::size(words)];
        if ((state >> 20) % 7 == 0) text += std::to_string(state % 100000);
    }
    text.resize(size);
    return text;
}

}  // namespace invidx::testing
