// Progress on stderr while a build runs: the input's bytes whose documents
// are parsed (work done, not bytes read: reading runs ahead), documents,
// MB/s, ETA; then the phases after the graph, writing and publishing. A live
// bar on a terminal, a plain line every few seconds otherwise (logs and CI
// stay readable). 100% means every document is parsed and indexed.
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
    // The phases of ProgressNotice::phase after "indexing", entered once the
    // graph has drained; each is printed and notified at once.
    static constexpr const char* kWriting = "writing";
    static constexpr const char* kPublishing = "publishing";
    void enter_phase(const char* phase);
    void stop();

private:
    void loop();
    void report(bool notify, bool print);  // a notice and/or a line now; under mutex_
    std::string line(const ProgressNotice& now) const;
    ProgressNotice notice(double seconds, bool finished);

    const RunState& state_;
    std::function<void(const ProgressNotice&)> notify_;
    std::chrono::milliseconds notify_interval_;
    std::chrono::steady_clock::time_point start_;
    bool bar_ = false;
    bool enabled_ = false;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    const char* phase_ = "indexing";  // under mutex_
    bool printed_ = false;            // a line is on stderr (a bar to clear at the end)
    uint64_t bytes_done_ = 0;         // the largest estimate given yet: progress never goes back
    std::thread thread_;
};

}  // namespace invidx
