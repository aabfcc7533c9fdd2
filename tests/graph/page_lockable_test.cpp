// Text blocks' bytes (invidx/text_bytes.hpp): large buffers page-aligned,
// locked while a LockingScope lives and unlocked before they are freed,
// whatever grows, moves or drops them. The locker here only records calls.
#include "invidx/text_bytes.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>

using namespace invidx;

namespace {

std::set<const void*> fake_locked;
bool fail_locks = false;

bool fake_lock(int device, void* pointer, std::size_t bytes) {
    CHECK(device == 3);
    CHECK(reinterpret_cast<std::uintptr_t>(pointer) % 4096 == 0);
    CHECK(bytes % 4096 == 0);
    if (fail_locks) return false;
    CHECK(fake_locked.insert(pointer).second);
    return true;
}

void fake_unlock(int device, void* pointer) {
    CHECK(device == 3);
    CHECK(fake_locked.erase(pointer) == 1);
}

constexpr std::size_t MiB = std::size_t{1} << 20;

}  // namespace

TEST_CASE("text bytes: small buffers are plain, large ones page-aligned and unlocked without a scope") {
    TextBytes small(100, 'a');
    CHECK(std::string_view(small) == std::string(100, 'a'));
    CHECK_FALSE(page_lockable::is_locked(small.data(), small.size()));
    TextBytes large(2 * MiB, 'b');
    CHECK(reinterpret_cast<std::uintptr_t>(large.data()) % 4096 == 0);
    CHECK_FALSE(page_lockable::is_locked(large.data(), large.size()));
}

TEST_CASE("text bytes: locked while a scope lives, unlocked when freed, grown or dropped; moves keep the lock") {
    fake_locked.clear();
    fail_locks = false;
    const page_lockable::Counts before = page_lockable::counts();
    auto kept = std::make_unique<TextBytes>();
    {
        const page_lockable::LockingScope scope({&fake_lock, &fake_unlock, 3});
        TextBytes block(3 * MiB, 'x');
        page_lockable::wait_for_locks();  // locked on a helper thread
        CHECK(fake_locked.count(block.data()) == 1);
        CHECK(page_lockable::is_locked(block.data(), block.size()));
        CHECK(page_lockable::is_locked(block.data() + 10, 1000));
        CHECK_FALSE(page_lockable::is_locked(block.data() + 10, 4 * MiB));  // runs past the buffer
        CHECK(page_lockable::counts().locked_now == before.locked_now + 1);

        // Grown past its capacity: the new buffer is locked, the old one unlocked before it is freed.
        const char* old = block.data();
        block.resize(block.capacity() + MiB, 'y');
        page_lockable::wait_for_locks();
        CHECK(block.data() != old);
        CHECK(fake_locked.count(old) == 0);
        CHECK(page_lockable::is_locked(block.data(), block.size()));

        // Moved: the same buffer, still locked.
        const char* moved_from = block.data();
        *kept = std::move(block);
        CHECK(kept->data() == moved_from);
        CHECK(page_lockable::is_locked(kept->data(), kept->size()));
        CHECK(fake_locked.size() == 1);
    }
    // The scope is gone: what it locked stays locked until freed, new buffers are not locked.
    CHECK(page_lockable::is_locked(kept->data(), kept->size()));
    TextBytes after_scope(2 * MiB, 'z');
    CHECK_FALSE(page_lockable::is_locked(after_scope.data(), after_scope.size()));
    kept.reset();  // freed: unlocked first
    CHECK(fake_locked.empty());
    CHECK(page_lockable::counts().locked_now == before.locked_now);
    CHECK(page_lockable::counts().locked_total == before.locked_total + 2);
}

TEST_CASE("text bytes: a buffer the locker could not lock is used unlocked and counted") {
    fake_locked.clear();
    fail_locks = true;
    const std::size_t failures = page_lockable::counts().lock_failures;
    {
        const page_lockable::LockingScope scope({&fake_lock, &fake_unlock, 3});
        TextBytes block(2 * MiB, 'q');
        page_lockable::wait_for_locks();
        CHECK(block[2 * MiB - 1] == 'q');
        CHECK_FALSE(page_lockable::is_locked(block.data(), block.size()));
    }
    CHECK(page_lockable::counts().lock_failures == failures + 1);
    fail_locks = false;
}

TEST_CASE("text bytes: buffers freed before or while they are locked are never left locked") {
    fake_locked.clear();
    fail_locks = false;
    {
        const page_lockable::LockingScope scope({&fake_lock, &fake_unlock, 3});
        for (int i = 0; i < 20; ++i) {
            TextBytes brief(MiB + static_cast<std::size_t>(i) * 4096, 'b');
            CHECK(brief.back() == 'b');
        }
    }
    page_lockable::wait_for_locks();
    CHECK(fake_locked.empty());
}
