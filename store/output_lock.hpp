// One writer per index directory: "<final_dir>.lock" beside it, held with
// flock(LOCK_EX | LOCK_NB) from before the temporary directory is made until
// the writer is gone. The kernel drops a flock with the last descriptor, so a
// build killed by any signal (SIGKILL included) never leaves a stale lock; the
// file itself stays and is not the lock. It is never deleted: deleting it
// would let a second writer lock a new file while a first still holds the old.
#pragma once

#include <filesystem>
#include <string>

namespace invidx {

class OutputLock {
public:
    // Locks "<final_dir>.lock" (created if missing; final_dir's parent must
    // exist) and writes this process's id into it. Throws invidx::Error
    // naming the holder's process id if another writer holds it.
    explicit OutputLock(const std::filesystem::path& final_dir);
    ~OutputLock();
    OutputLock(const OutputLock&) = delete;
    OutputLock& operator=(const OutputLock&) = delete;

    const std::filesystem::path& path() const { return path_; }

    static std::filesystem::path path_for(const std::filesystem::path& final_dir);

private:
    std::filesystem::path path_;
    int fd_ = -1;
};

}  // namespace invidx
