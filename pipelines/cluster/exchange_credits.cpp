#include "pipelines/cluster/exchange_credits.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace invidx {

ExchangeCredits::ExchangeCredits(uint32_t capacity) : capacity_(std::max<uint32_t>(1, capacity)) {
    figures_.capacity = capacity_;
}

Lease ExchangeCredits::admit(Lease batch_hold) {
    auto entry = std::make_shared<Entry>();
    Lease released;  // let go outside the lock: it may run graph code
    {
        std::lock_guard lock(mutex_);
        ++figures_.batches;
        if (in_use_ < capacity_ && waiting_.empty()) {
            ++in_use_;
            entry->credited = true;
            released = std::move(batch_hold);
            figures_.peak_in_use = std::max(figures_.peak_in_use, in_use_);
        } else {
            ++figures_.waited;
            entry->queued = std::chrono::steady_clock::now();
            entry->batch_hold = std::move(batch_hold);
            waiting_.push_back(entry);
        }
    }
    released.reset();
    auto self = shared_from_this();
    return Lease(new char(0), [self, entry](void* p) {
        delete static_cast<char*>(p);
        self->finished(entry);
    });
}

void ExchangeCredits::finished(const std::shared_ptr<Entry>& entry) {
    std::vector<Lease> released;
    {
        std::lock_guard lock(mutex_);
        const auto now = std::chrono::steady_clock::now();
        const auto waited_since = [&](const Entry& e) {
            figures_.wait_seconds += std::chrono::duration<double>(now - e.queued).count();
        };
        if (entry->credited) {
            --in_use_;
        } else {
            // Done before a credit came: its token goes, no credit taken.
            waiting_.erase(std::find(waiting_.begin(), waiting_.end(), entry));
            waited_since(*entry);
            released.push_back(std::move(entry->batch_hold));
        }
        while (in_use_ < capacity_ && !waiting_.empty()) {
            const std::shared_ptr<Entry> next = std::move(waiting_.front());
            waiting_.pop_front();
            waited_since(*next);
            next->credited = true;
            ++in_use_;
            released.push_back(std::move(next->batch_hold));
            figures_.peak_in_use = std::max(figures_.peak_in_use, in_use_);
        }
    }
    released.clear();
}

ExchangeCreditFigures ExchangeCredits::figures() const {
    std::lock_guard lock(mutex_);
    return figures_;
}

}  // namespace invidx
