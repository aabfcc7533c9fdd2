#include "nodes/decompress/archive_stream.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <cerrno>

#include "invidx/entry_name.hpp"
#include "invidx/error.hpp"

namespace invidx {

ArchiveStream::ArchiveStream(ByteSource& source, InputFile file)
    : source_(source), file_(std::move(file)), error_file_(file_.path) {}

ArchiveStream::~ArchiveStream() {
    if (archive_ != nullptr) archive_read_free(archive_);
}

struct ArchiveCallbacks {
    static la_ssize_t read(struct archive* archive, void* self, const void** buffer) {
        auto* stream = static_cast<ArchiveStream*>(self);
        // No exception may cross libarchive's C frames: keep it, report a
        // fatal error to libarchive, and rethrow it once libarchive returned.
        try {
            const std::string_view bytes = stream->source_.next();
            *buffer = bytes.data();
            return static_cast<la_ssize_t>(bytes.size());
        } catch (...) {
            stream->source_error_ = std::current_exception();
            archive_set_error(archive, EIO, "input source failed");
            return ARCHIVE_FATAL;
        }
    }
};

void ArchiveStream::open() {
    archive_ = archive_read_new();
    if (archive_ == nullptr) fail("out of memory");
    archive_read_support_filter_all(archive_);
    archive_read_support_format_tar(archive_);
    archive_read_support_format_gnutar(archive_);
    archive_read_support_format_zip_streamable(archive_);
    archive_read_support_format_raw(archive_);
    // libarchive's raw reader refuses empty input; the "empty" format accepts
    // it, and next_entry() turns it into the one empty entry of the file.
    archive_read_support_format_empty(archive_);
    if (archive_read_open(archive_, this, nullptr, &ArchiveCallbacks::read, nullptr) != ARCHIVE_OK) {
        fail(archive_error_string(archive_) ? archive_error_string(archive_) : "cannot open input");
    }
}

void ArchiveStream::fail(const std::string& what) {
    failed_ = true;
    if (source_error_) std::rethrow_exception(source_error_);
    throw Error(what, ErrorContext{.node = "decompress",
                                   .file = error_file_,
                                   .record = std::nullopt,
                                   .byte_offset = entry_offset_});
}

bool ArchiveStream::next_entry(std::string& entry_name) {
    if (failed_) throw Error("decoding already failed", ErrorContext{.node = "decompress", .file = error_file_, .record = std::nullopt, .byte_offset = std::nullopt});
    if (finished_) return false;
    if (empty_input_) {
        finished_ = true;
        return false;
    }
    if (archive_ == nullptr) open();
    for (;;) {
        struct archive_entry* entry = nullptr;
        const int status = archive_read_next_header(archive_, &entry);
        if (status == ARCHIVE_EOF) {
            if (!entered_ && archive_format(archive_) == ARCHIVE_FORMAT_EMPTY) {
                empty_input_ = true;
                entered_ = true;
                entry_index_ = 0;
                entry_offset_ = 0;
                entry_name = file_.name;
                error_file_ = file_.path;
                return true;
            }
            finished_ = true;
            return false;
        }
        if (status < ARCHIVE_WARN) {
            // Between entries there is no entry offset; the position in the
            // decompressed stream says where the damage is.
            const char* message = archive_error_string(archive_);
            error_file_ = file_.path;
            entry_offset_ = static_cast<uint64_t>(archive_filter_bytes(archive_, 0));
            fail(message ? message : "cannot read the next entry (truncated or damaged input)");
        }
        const bool raw = archive_format(archive_) == ARCHIVE_FORMAT_RAW;
        std::string member;
        if (!raw) {
            // A hard link's data lives in the member it points to.
            if (archive_entry_filetype(entry) != AE_IFREG || archive_entry_hardlink(entry) != nullptr) continue;
            const char* path = archive_entry_pathname(entry);
            if (path == nullptr) path = archive_entry_pathname_utf8(entry);
            member = path ? path : "";
        }
        if (entered_) ++entry_index_;
        entered_ = true;
        entry_offset_ = 0;
        entry_name = raw ? file_.name : archive_member_name(file_.name, member);
        error_file_ = raw ? file_.path : archive_member_name(file_.path, member);
        return true;
    }
}

size_t ArchiveStream::read(char* buffer, size_t n) {
    if (failed_) throw Error("decoding already failed", ErrorContext{.node = "decompress", .file = error_file_, .record = std::nullopt, .byte_offset = entry_offset_});
    if (empty_input_ || finished_ || !entered_ || n == 0) return 0;
    const la_ssize_t got = archive_read_data(archive_, buffer, n);
    if (got < 0) {
        const char* message = archive_error_string(archive_);
        fail(message ? message : "decompression failed (truncated or damaged input)");
    }
    entry_offset_ += static_cast<uint64_t>(got);
    return static_cast<size_t>(got);
}

}  // namespace invidx
