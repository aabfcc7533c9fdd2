#include "graph/token_pool.hpp"

namespace invidx {

TokenPool::TokenPool(uint32_t capacity) : capacity_(capacity), shared_(std::make_shared<Shared>()) {
    shared_->in_flight = &in_flight_;
}

TokenPool::~TokenPool() {
    std::lock_guard lock(shared_->mutex);
    shared_->release = nullptr;
    shared_->in_flight = nullptr;
}

void TokenPool::on_release(std::function<void()> release) {
    std::lock_guard lock(shared_->mutex);
    shared_->release = std::move(release);
}

Lease TokenPool::acquire() {
    const uint32_t now = ++in_flight_;
    uint32_t peak = peak_.load();
    while (now > peak && !peak_.compare_exchange_weak(peak, now)) {}
    // The deleter holds the shared state, not the pool: a lease outliving the
    // pool (after an error, say) returns nothing and touches nothing freed.
    std::shared_ptr<Shared> shared = shared_;
    void* token = shared.get();
    return Lease(token, [shared](void*) {
        std::function<void()> release;
        {
            std::lock_guard lock(shared->mutex);
            if (shared->in_flight) --*shared->in_flight;
            release = shared->release;
        }
        if (release) release();
    });
}

}  // namespace invidx
