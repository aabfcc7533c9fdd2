// The bytes of a decoded text block (TextBlock::bytes): a std::string whose
// large buffers are page-aligned and, while a build's GPUs parse, locked in
// memory when allocated, so that a GPU parse slot copies a block's text to
// its device straight from the block instead of gathering it into staging
// memory first (one host copy of every byte of text: 5-8% of a GPU build's
// CPU, docs/PERFORMANCE.md).
//
// Why an allocator and not a buffer type of our own: every reader of a
// block keeps the std::string interface, and a buffer is always freed
// through deallocate(), which unlocks it first, whatever grows, moves or
// drops it. The allocator is stateless, so moving a block's bytes always
// moves the buffer (never copies it).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace invidx {

namespace page_lockable {

// Buffers of at least this many bytes are page-aligned and may be locked;
// smaller ones come from operator new.
inline constexpr std::size_t kLockableBytes = std::size_t{1} << 20;

void* allocate(std::size_t bytes);
void deallocate(void* pointer, std::size_t bytes) noexcept;

// Whether [pointer, pointer + bytes) lies within one locked buffer.
bool is_locked(const void* pointer, std::size_t bytes);

// How buffers are locked and unlocked (devices/: cudaHostRegister on the
// CUDA build). lock returns false when it could not lock; the buffer is
// then used unlocked.
struct Locker {
    bool (*lock)(int device, void* pointer, std::size_t bytes) = nullptr;
    void (*unlock)(int device, void* pointer) = nullptr;
    int device = 0;
};

// While one lives, lockable buffers are locked with its Locker (the first
// scope's, where several builds overlap) when they are allocated: on a
// helper thread, so that the allocating thread does not wait; is_locked
// says false until it is done. A buffer locked stays locked until it is
// freed (a free waits for a lock in progress).
class LockingScope {
public:
    explicit LockingScope(Locker locker);
    ~LockingScope();
    LockingScope(const LockingScope&) = delete;
    LockingScope& operator=(const LockingScope&) = delete;
};

// Buffers allocated and locked so far in this process (for reports and tests).
struct Counts {
    std::size_t locked_now = 0;        // buffers
    std::size_t locked_bytes_now = 0;
    std::size_t locked_total = 0;      // buffers ever locked
    std::size_t unlocked_total = 0;    // of those, unlocked (freed)
    std::size_t lock_failures = 0;
};
Counts counts();

// Waits until every buffer allocated while a scope lived is locked or
// could not be (for tests).
void wait_for_locks();

}  // namespace page_lockable

template <class T>
struct PageLockableAllocator {
    using value_type = T;
    PageLockableAllocator() noexcept = default;
    template <class U>
    PageLockableAllocator(const PageLockableAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) { return static_cast<T*>(page_lockable::allocate(n * sizeof(T))); }
    void deallocate(T* pointer, std::size_t n) noexcept { page_lockable::deallocate(pointer, n * sizeof(T)); }
    friend bool operator==(const PageLockableAllocator&, const PageLockableAllocator&) noexcept { return true; }
};

using TextBytes = std::basic_string<char, std::char_traits<char>, PageLockableAllocator<char>>;

}  // namespace invidx
