#include "store/durable_sync.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "invidx/error.hpp"

namespace invidx {
namespace {

std::atomic<uint64_t> sync_wait_nanoseconds{0};
std::atomic<uint64_t> sync_call_count{0};

// Enough to keep a device's queue full; more only adds threads.
constexpr size_t kParallelSyncs = 16;

}  // namespace

int timed_fsync(int fd) {
    const auto start = std::chrono::steady_clock::now();
    const int result = ::fsync(fd);
    const int saved = errno;
    const auto waited = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
    sync_wait_nanoseconds.fetch_add(static_cast<uint64_t>(waited.count()), std::memory_order_relaxed);
    sync_call_count.fetch_add(1, std::memory_order_relaxed);
    errno = saved;
    return result;
}

double sync_wait_seconds() { return static_cast<double>(sync_wait_nanoseconds.load(std::memory_order_relaxed)) / 1e9; }

uint64_t sync_calls() { return sync_call_count.load(std::memory_order_relaxed); }

void sync_files(const std::vector<std::filesystem::path>& files) {
    std::atomic<size_t> next{0};
    std::mutex failure_mutex;
    std::string failure;
    const auto work = [&] {
        for (size_t i = next++; i < files.size(); i = next++) {
            const std::string name = files[i].string();
            const int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
            std::string problem;
            if (fd < 0) {
                problem = std::string("cannot open to sync: ") + std::strerror(errno);
            } else {
                if (timed_fsync(fd) != 0) problem = std::string("cannot sync: ") + std::strerror(errno);
                ::close(fd);
            }
            if (!problem.empty()) {
                const std::lock_guard lock(failure_mutex);
                if (failure.empty()) failure = name + ": " + problem;
            }
        }
    };
    std::vector<std::thread> threads;
    const size_t count = std::min(kParallelSyncs, files.size());
    for (size_t t = 1; t < count; ++t) threads.emplace_back(work);
    work();
    for (auto& thread : threads) thread.join();
    if (!failure.empty()) throw Error(failure);
}

}  // namespace invidx
