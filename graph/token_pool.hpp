// Memory bounded by tokens, whatever the input's size (fgbzip2's idiom): the
// source may have at most `capacity` read blocks in flight. Each block carries
// a Lease; every message derived from it copies the lease, and when the last
// copy is gone the token goes back to the source's limiter_node.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include "invidx/messages.hpp"

namespace invidx {

class TokenPool {
public:
    explicit TokenPool(uint32_t capacity);
    ~TokenPool();

    uint32_t capacity() const { return capacity_; }
    // What returning a token does (the source wires its limiter's decrement).
    void on_release(std::function<void()> release);
    // A token for one block; returned when the last copy of the lease dies.
    Lease acquire();

    uint32_t in_flight() const { return in_flight_.load(); }
    uint32_t peak_in_flight() const { return peak_.load(); }

private:
    struct Shared {
        std::mutex mutex;
        std::function<void()> release;  // empty once the pool is gone
        std::atomic<uint32_t>* in_flight = nullptr;
    };
    uint32_t capacity_;
    std::atomic<uint32_t> in_flight_{0};
    std::atomic<uint32_t> peak_{0};
    std::shared_ptr<Shared> shared_;
};

}  // namespace invidx
