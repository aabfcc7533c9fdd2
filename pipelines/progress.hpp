// Progress on stderr while a build runs: bytes and documents done of the
// total, MB/s, ETA. A live bar on a terminal, a plain line every few seconds
// otherwise (logs and CI stay readable).
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "invidx/run_state.hpp"

namespace invidx {

class ProgressReporter {
public:
    // mode: "auto", "bar", "lines" or "off".
    ProgressReporter(const RunState& state, const std::string& mode);
    ~ProgressReporter();  // stops, and ends the bar's line
    void stop();

private:
    void loop();
    std::string line(double seconds) const;

    const RunState& state_;
    bool bar_ = false;
    bool enabled_ = false;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace invidx
