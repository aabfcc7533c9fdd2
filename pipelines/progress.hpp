// Progress on stderr while a build runs: bytes and documents done of the
// total, MB/s, ETA. A live bar on a terminal, a plain line every few seconds
// otherwise (logs and CI stay readable).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "invidx/pipeline.hpp"
#include "invidx/run_state.hpp"

namespace invidx {

class ProgressReporter {
public:
    // `mode`: on stderr (a bar on a terminal, lines, or nothing); `notify`, when set,
    // gets a notice every `notify_interval` and a last one at stop().
    ProgressReporter(const RunState& state, ProgressMode mode,
                     std::function<void(const ProgressNotice&)> notify = {},
                     std::chrono::milliseconds notify_interval = std::chrono::milliseconds(1000));
    ~ProgressReporter();  // stops, and ends the bar's line
    void stop();

private:
    void loop();
    std::string line(double seconds) const;
    ProgressNotice notice(double seconds, bool finished) const;

    const RunState& state_;
    std::function<void(const ProgressNotice&)> notify_;
    std::chrono::milliseconds notify_interval_;
    std::chrono::steady_clock::time_point start_;
    bool bar_ = false;
    bool enabled_ = false;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace invidx
