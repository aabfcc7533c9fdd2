#include "nodes/decompress/archive_stream.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cerrno>
#include <unordered_set>

#include "invidx/entry_name.hpp"
#include "invidx/error.hpp"
#include "nodes/decompress/inflating_source.hpp"
#include "nodes/decompress/named_archive.hpp"
#include "nodes/decompress/peeked_source.hpp"
#include "nodes/decompress/zip_directory.hpp"

namespace invidx {
namespace {

// How much of a zip's end is kept for its central directory: enough for
// tens of thousands of entries. A directory that starts earlier is not
// checked (zip_directory.hpp, not_checkable).
constexpr size_t kZipTailBytes = size_t{4} << 20;

constexpr std::string_view kZipLocalHeader = "PK\x03\x04";

// libarchive warns, and goes on, when a member's name is not valid in the
// locale's character set; the name's bytes are still there, so that is no
// damage. Every other header warning is ("Damaged tar archive", a malformed
// pax attribute, an inconsistent size).
bool harmless_warning(const char* message) {
    return message != nullptr && std::string_view(message).find("be converted") != std::string_view::npos;
}

bool is_tar(int format) { return (format & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_TAR; }
bool is_zip(int format) { return (format & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_ZIP; }

// What libarchive's gzip reader bids on (RFC 1952 §2.3.1): the magic, the
// deflate method, no reserved flag. Anything else stays raw to it, as before.
bool gzip_header_start(std::string_view start) {
    return start.size() == 4 && start[0] == '\x1f' && start[1] == '\x8b' && start[2] == '\x08' &&
           (static_cast<unsigned char>(start[3]) & 0xe0) == 0;
}

}  // namespace

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
            const std::string_view bytes = stream->input_->next();
            if (!stream->inflated_) stream->keep_zip_tail(bytes);
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
    peeked_ = std::make_unique<PeekedSource>(source_);
    input_ = peeked_.get();
    try {
        // libarchive's gzip filter inflates with zlib and checks no trailer:
        // GzipStream inflates instead, and libarchive reads the text.
        if (gzip_header_start(peeked_->peek(4))) {
            inflated_ = std::make_unique<InflatingSource>(*peeked_, file_);
            input_ = inflated_.get();
            zip_tail_state_ = ZipTail::not_zip;
        }
    } catch (...) {
        failed_ = true;
        throw;
    }
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
            if (inflated_) {
                // The rest after a tar's end blocks: the last trailer is checked.
                try {
                    inflated_->finish();
                } catch (...) {
                    failed_ = true;
                    throw;
                }
            }
            if (!entered_) check_no_header(archive_format(archive_));
            if (is_zip(archive_format(archive_))) check_zip_directory();
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
        if (status == ARCHIVE_RETRY) {
            // libarchive's tar reader would skip ahead block by block to the
            // next header that checks, losing the member: GNU tar stops here.
            error_file_ = file_.path;
            entry_offset_ = static_cast<uint64_t>(archive_read_header_position(archive_));
            fail("damaged tar header at byte " + std::to_string(entry_offset_) +
                 " (its checksum does not match), " +
                 (previous_member_.empty() ? std::string("before the first member")
                                           : "after member '" + previous_member_ + "'"));
        }
        const bool raw = archive_format(archive_) == ARCHIVE_FORMAT_RAW;
        if (raw) check_raw_named_archive();
        std::string member;
        if (!raw) {
            const char* path = archive_entry_pathname(entry);
            if (path == nullptr) path = archive_entry_pathname_utf8(entry);
            member = path ? path : "";
            if (is_zip(archive_format(archive_))) zip_headers_read_.push_back(member);
            if (status == ARCHIVE_WARN && !harmless_warning(archive_error_string(archive_))) {
                const char* message = archive_error_string(archive_);
                error_file_ = archive_member_name(file_.path, member);
                entry_offset_ = 0;
                fail(std::string("damaged member header: ") + (message ? message : "libarchive warned"));
            }
            previous_member_ = member;
            // A hard link's data lives in the member it points to.
            if (archive_entry_filetype(entry) != AE_IFREG || archive_entry_hardlink(entry) != nullptr) continue;
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

void ArchiveStream::check_no_header(int format) {
    // libarchive takes a first block of 512 zero bytes for the end of an
    // empty tar, so a zeroed or torn file of any format would read as no
    // documents at all. Only a name that says tar makes it one.
    if (is_tar(format) && archive_named_by_file(file_.path) != NamedArchive::tar) {
        error_file_ = file_.path;
        entry_offset_ = 0;
        fail("starts with a block of 512 zero bytes: not a valid header of any input format (a zeroed or torn "
             "file?); only a file named .tar or .tgz may be an empty tar archive");
    }
}

void ArchiveStream::check_raw_named_archive() {
    switch (archive_named_by_file(file_.path)) {
        case NamedArchive::none: return;
        case NamedArchive::tar:
            fail("named as a tar archive, but its first header is not a valid tar header (damaged: its checksum "
                 "does not match)");
        case NamedArchive::zip:
            fail("named as a zip archive, but it does not start with a zip local file header (damaged)");
    }
}

void ArchiveStream::keep_zip_tail(std::string_view raw) {
    if (zip_tail_state_ == ZipTail::not_zip) return;
    // The usual first read decides without a copy.
    if (zip_tail_state_ == ZipTail::undecided && zip_tail_.empty() && raw.size() >= kZipLocalHeader.size() &&
        raw.substr(0, kZipLocalHeader.size()) != kZipLocalHeader) {
        zip_tail_state_ = ZipTail::not_zip;
        return;
    }
    zip_tail_.append(raw);
    if (zip_tail_state_ == ZipTail::undecided) {
        if (zip_tail_.size() < kZipLocalHeader.size()) return;
        const bool zip = zip_tail_.compare(0, kZipLocalHeader.size(), kZipLocalHeader) == 0;
        zip_tail_state_ = zip ? ZipTail::kept : ZipTail::not_zip;
        if (!zip) {
            std::string().swap(zip_tail_);
            return;
        }
    }
    if (zip_tail_.size() > 2 * kZipTailBytes) {
        const size_t dropped = zip_tail_.size() - kZipTailBytes;
        zip_tail_.erase(0, dropped);
        zip_tail_offset_ += dropped;
    }
}

void ArchiveStream::check_zip_directory() {
    // Only a zip read from its first byte (not one inside a compressed
    // stream) has its directory in the raw bytes.
    if (zip_tail_state_ != ZipTail::kept) return;
    // libarchive stops at the directory; the rest of the file holds it.
    for (std::string_view raw = input_->next(); !raw.empty(); raw = input_->next()) keep_zip_tail(raw);
    error_file_ = file_.path;
    const ZipDirectory directory = read_zip_directory(zip_tail_, zip_tail_offset_);
    switch (directory.status) {
        case ZipDirectory::Status::found: break;
        case ZipDirectory::Status::not_checkable: return;
        case ZipDirectory::Status::no_end_record:
            entry_offset_ = zip_tail_offset_ + zip_tail_.size();
            fail("zip archive without an end of central directory record (truncated or damaged)");
        case ZipDirectory::Status::damaged:
            entry_offset_ = zip_tail_offset_ + zip_tail_.size();
            fail("zip archive with a damaged central directory");
    }
    // Names compared as bytes; when none is missing but the counts differ,
    // or the other way round, a name was converted differently: no damage.
    if (directory.entries.size() <= zip_headers_read_.size()) return;
    const std::unordered_set<std::string> read(zip_headers_read_.begin(), zip_headers_read_.end());
    for (const ZipDirectoryEntry& entry : directory.entries) {
        if (read.count(entry.name) != 0) continue;
        error_file_ = archive_member_name(file_.path, entry.name);
        entry_offset_ = entry.local_header_offset;
        fail("zip member not found where the central directory puts it (byte " +
             std::to_string(entry.local_header_offset) + "): its local file header is damaged");
    }
}

}  // namespace invidx
