// A file written whole or not at all: the bytes go to "<target>.partial-<pid>-<n>"
// beside the target and, once all are written and synced, are renamed over
// it in one step. Until then an existing target is untouched (never
// truncated: a reader or a mapping of it sees the old bytes), and a failure
// (a full disk, a failed write) removes the partial file.
#pragma once

#include <filesystem>
#include <memory>
#include <ostream>
#include <string>

namespace invidx {

class ReplacingFile {
public:
    // Creates the partial file beside `target` (with an existing target's
    // permissions). An invidx::Error names the target when it cannot, or
    // when the target is a directory.
    explicit ReplacingFile(std::filesystem::path target);
    ~ReplacingFile();  // not committed: the partial file is removed
    ReplacingFile(const ReplacingFile&) = delete;
    ReplacingFile& operator=(const ReplacingFile&) = delete;

    // Where the bytes go. A failed write sets badbit; commit() then fails
    // with the system's reason.
    std::ostream& stream();
    // Flushes, fsyncs (durable_sync.hpp), renames the partial file over the
    // target and syncs the directory. An invidx::Error naming the target
    // (and, for a failed write, why: "No space left on device") otherwise,
    // the partial file removed and the target as it was.
    void commit();
    // After a failed write: the invidx::Error commit() would give, naming the
    // system's reason (the partial file removed); nothing when none failed.
    void throw_if_write_failed();

    const std::filesystem::path& target() const { return target_; }
    const std::filesystem::path& partial() const { return partial_; }

private:
    class Buffer;
    [[noreturn]] void fail(const std::string& what, int error);

    std::filesystem::path target_;
    std::filesystem::path partial_;
    std::unique_ptr<Buffer> buffer_;
    std::unique_ptr<std::ostream> stream_;
    bool committed_ = false;
};

}  // namespace invidx
