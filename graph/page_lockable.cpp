// page_lockable (include/invidx/text_bytes.hpp): page-aligned large buffers,
// locked through the Locker of the LockingScope alive when allocated.
//
// INVIDX_TEXT_LOCK (for measurements): "background" (the default) locks a
// new buffer on a helper thread while its first user fills it, so no
// decoder waits for CUDA's registration; "allocate" locks it on the
// allocating thread before handing it out; "off" locks nothing.
#include "invidx/text_bytes.hpp"

#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <thread>

namespace invidx::page_lockable {
namespace {

constexpr std::size_t kPageBytes = 4096;

enum class Mode { background, allocate, off };

Mode mode_from_environment() {
    const char* value = std::getenv("INVIDX_TEXT_LOCK");
    if (value == nullptr || std::strcmp(value, "background") == 0) return Mode::background;
    if (std::strcmp(value, "allocate") == 0) return Mode::allocate;
    return Mode::off;
}

enum class Lock { queued, locking, locked };

struct Entry {
    std::size_t bytes = 0;
    Locker locker;
    Lock state = Lock::queued;
};

struct State {
    std::mutex mutex;
    std::condition_variable queued_cv;   // the helper: a buffer to lock
    std::condition_variable locked_cv;   // a free waits for a lock in progress
    std::size_t scopes = 0;
    std::optional<Locker> locker;        // the first live scope's
    std::map<std::uintptr_t, Entry> buffers;  // lockable buffers allocated while a scope lived
    std::deque<std::uintptr_t> queue;
    bool helper_started = false;
    Counts counts;
    const Mode mode = mode_from_environment();
};

State& state() {
    static State* const instance = new State;  // never destroyed: buffers may be freed during exit
    return *instance;
}

std::size_t rounded(std::size_t bytes) { return (bytes + kPageBytes - 1) / kPageBytes * kPageBytes; }

// Records the outcome of locking `start` (the entry exists, state locking).
void settle(State& s, std::uintptr_t start, bool ok) {
    auto found = s.buffers.find(start);
    if (ok) {
        found->second.state = Lock::locked;
        ++s.counts.locked_now;
        ++s.counts.locked_total;
        s.counts.locked_bytes_now += found->second.bytes;
    } else {
        s.buffers.erase(found);
        ++s.counts.lock_failures;
    }
    s.locked_cv.notify_all();
}

void helper_loop() {
    State& s = state();
    std::unique_lock lock(s.mutex);
    for (;;) {
        s.queued_cv.wait(lock, [&] { return !s.queue.empty(); });
        const std::uintptr_t start = s.queue.front();
        s.queue.pop_front();
        auto found = s.buffers.find(start);
        if (found == s.buffers.end() || found->second.state != Lock::queued) continue;  // freed meanwhile
        found->second.state = Lock::locking;
        const Entry entry = found->second;
        lock.unlock();
        const bool ok = entry.locker.lock(entry.locker.device, reinterpret_cast<void*>(start), entry.bytes);
        lock.lock();
        settle(s, start, ok);
    }
}

}  // namespace

void* allocate(std::size_t bytes) {
    if (bytes < kLockableBytes) return ::operator new(bytes);
    const std::size_t size = rounded(bytes);
    void* pointer = std::aligned_alloc(kPageBytes, size);
    if (pointer == nullptr) throw std::bad_alloc();
    const auto start = reinterpret_cast<std::uintptr_t>(pointer);
    State& s = state();
    std::unique_lock lock(s.mutex);
    if (!s.locker || s.mode == Mode::off) return pointer;
    const Locker locker = *s.locker;
    s.buffers[start] = Entry{size, locker, s.mode == Mode::allocate ? Lock::locking : Lock::queued};
    if (s.mode == Mode::background) {
        s.queue.push_back(start);
        if (!s.helper_started) {
            s.helper_started = true;
            std::thread(helper_loop).detach();  // lives as long as the process, waiting when idle
        }
        s.queued_cv.notify_one();
        return pointer;
    }
    // Mode::allocate: outside the mutex (about a millisecond for 8 MiB).
    lock.unlock();
    const bool ok = locker.lock(locker.device, pointer, size);
    lock.lock();
    settle(s, start, ok);
    return pointer;
}

void deallocate(void* pointer, std::size_t bytes) noexcept {
    if (pointer == nullptr) return;
    if (bytes < kLockableBytes) {
        ::operator delete(pointer);
        return;
    }
    const auto start = reinterpret_cast<std::uintptr_t>(pointer);
    State& s = state();
    std::optional<Locker> unlocker;
    {
        std::unique_lock lock(s.mutex);
        auto found = s.buffers.find(start);
        if (found != s.buffers.end() && found->second.state == Lock::locking) {
            s.locked_cv.wait(lock, [&] {
                found = s.buffers.find(start);
                return found == s.buffers.end() || found->second.state != Lock::locking;
            });
        }
        if (found != s.buffers.end()) {
            if (found->second.state == Lock::locked) {
                unlocker = found->second.locker;
                --s.counts.locked_now;
                s.counts.locked_bytes_now -= found->second.bytes;
                ++s.counts.unlocked_total;
            }
            s.buffers.erase(found);  // a queued one is skipped by the helper
        }
    }
    if (unlocker) unlocker->unlock(unlocker->device, pointer);
    std::free(pointer);
}

bool is_locked(const void* pointer, std::size_t bytes) {
    const auto start = reinterpret_cast<std::uintptr_t>(pointer);
    State& s = state();
    const std::lock_guard lock(s.mutex);
    auto after = s.buffers.upper_bound(start);
    if (after == s.buffers.begin()) return false;
    const auto& [buffer, entry] = *std::prev(after);
    return entry.state == Lock::locked && start + bytes <= buffer + entry.bytes;
}

void wait_for_locks() {
    State& s = state();
    std::unique_lock lock(s.mutex);
    s.locked_cv.wait(lock, [&] {
        for (const auto& [start, entry] : s.buffers)
            if (entry.state != Lock::locked) return false;
        return true;
    });
}

LockingScope::LockingScope(Locker locker) {
    State& s = state();
    const std::lock_guard lock(s.mutex);
    if (s.scopes++ == 0) s.locker = locker;
}

LockingScope::~LockingScope() {
    State& s = state();
    const std::lock_guard lock(s.mutex);
    if (--s.scopes == 0) s.locker.reset();
}

Counts counts() {
    State& s = state();
    const std::lock_guard lock(s.mutex);
    return s.counts;
}

}  // namespace invidx::page_lockable
