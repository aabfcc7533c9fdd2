// Byte buffers of the messages that come and go by the block (read blocks,
// decoded text blocks), kept for the next message instead of freed.
//
// Why: a buffer of megabytes that is freed goes back to the system (glibc
// maps and unmaps allocations that large, and the index node trims the heap),
// so the next one is faulted in again page by page and zero-filled by its
// resize: a cost paid for every block of the build instead of once per
// buffer in flight (docs/PERFORMANCE.md, "Memory bounds").
//
// Bounds: only buffers that came from take() are given back (share() is used
// where the buffer was taken), so the pool holds no more buffers than were in
// use at once, and at most max_free of them: reuse never raises the peak.
//
// A buffer comes back with its size and bytes as its last user left them;
// the taker sets the size it needs, so a buffer resized to the size it had
// is not zero-filled again. take() hands out the largest kept: takers want
// full blocks, and a buffer a file's last, short block left small would be
// zero-filled up to a block again (the read node's and GzipStream's memsets
// were 3-6% of a 2-core build's CPU).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace invidx {

template <class Buffer>
class BufferPool {
public:
    explicit BufferPool(size_t max_free) : max_free_(max_free) {}

    // The largest buffer the pool kept (its bytes unspecified), or an empty one.
    Buffer take() {
        const std::lock_guard lock(mutex_);
        if (free_.empty()) return Buffer{};
        size_t largest = free_.size() - 1;
        for (size_t i = 0; i + 1 < free_.size(); ++i)
            if (free_[i].size() > free_[largest].size()) largest = i;
        Buffer buffer = std::move(free_[largest]);
        free_[largest] = std::move(free_.back());
        free_.pop_back();
        return buffer;
    }

    // Keeps `buffer` for the next take(), unless max_free are kept already
    // or it holds no memory of its own (no more than a new one: a string's
    // inline bytes).
    void give_back(Buffer&& buffer) {
        if (buffer.capacity() <= Buffer().capacity()) return;
        const std::lock_guard lock(mutex_);
        if (free_.size() < max_free_) free_.push_back(std::move(buffer));
    }

    size_t free_count() const {
        const std::lock_guard lock(mutex_);
        return free_.size();
    }

    // Shares `message` as the flow graph passes messages; when its last
    // holder lets go, its buffer (message.*member) comes back to `pool`. The
    // pool lives as long as any message shared from it.
    template <class Message>
    static std::shared_ptr<const Message> share(const std::shared_ptr<BufferPool>& pool, Message&& message,
                                                Buffer Message::*member) {
        return std::shared_ptr<const Message>(new Message(std::move(message)), [pool, member](const Message* shared) {
            auto* owned = const_cast<Message*>(shared);  // allocated non-const just above
            pool->give_back(std::move(owned->*member));
            delete owned;
        });
    }

private:
    const size_t max_free_;
    mutable std::mutex mutex_;
    std::vector<Buffer> free_;
};

}  // namespace invidx
