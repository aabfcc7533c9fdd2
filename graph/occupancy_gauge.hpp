// The peak and the time-weighted mean of a level that changes at known
// instants: what a serial step holds back while it waits for an earlier
// item (the frame node's docid step, waiting on the collection's order).
// Not thread-safe: set it from one serial body.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace invidx {

class OccupancyGauge {
public:
    using Clock = std::chrono::steady_clock;

    // The level is `level` from `now` on (instants never go back).
    void set(uint64_t level, Clock::time_point now) {
        if (started_) {
            level_seconds_ += static_cast<double>(level_) * std::chrono::duration<double>(now - last_).count();
        } else {
            first_ = now;
            started_ = true;
        }
        last_ = now;
        level_ = level;
        peak_ = std::max(peak_, level);
    }

    uint64_t peak() const { return peak_; }
    // Level times seconds, from the first set() to the last.
    double level_seconds() const { return level_seconds_; }
    // Over the same span; 0 before two instants.
    double mean() const {
        const double span = std::chrono::duration<double>(last_ - first_).count();
        return span > 0 ? level_seconds_ / span : 0.0;
    }

private:
    bool started_ = false;
    Clock::time_point first_{}, last_{};
    uint64_t level_ = 0;
    uint64_t peak_ = 0;
    double level_seconds_ = 0;
};

}  // namespace invidx
