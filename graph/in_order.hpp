// Restores sequence order inside a serial node. oneTBB's serial nodes run one
// body at a time but do not promise to run them in the order the messages
// were sent (oneTBB issues #289, #829), and framing, run cutting and indexing
// must see their input in order. Each such node numbers its input and lets
// this buffer hold early arrivals until their turn; it holds at most what the
// engine's tokens let be in flight.
#pragma once

#include <cstdint>
#include <map>
#include <utility>

namespace invidx {

template <class T>
class InOrder {
public:
    // Calls process(item) for `item` if its turn has come, then for every
    // held item whose turn follows; otherwise holds `item`. Not thread-safe:
    // use it from a serial node's body.
    template <class Process>
    void push(uint64_t sequence, T item, Process&& process) {
        if (sequence != next_) {
            held_.emplace(sequence, std::move(item));
            return;
        }
        process(item);
        ++next_;
        for (auto it = held_.begin(); it != held_.end() && it->first == next_; it = held_.erase(it)) {
            process(it->second);
            ++next_;
        }
    }

    uint64_t next_sequence() const { return next_; }
    size_t held() const { return held_.size(); }

private:
    uint64_t next_ = 0;
    std::map<uint64_t, T> held_;
};

}  // namespace invidx
