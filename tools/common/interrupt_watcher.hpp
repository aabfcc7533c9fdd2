// SIGINT and SIGTERM for the tools (invidx-run; invidx merge and weight):
// the first becomes a stop request, a second ends the process at once by
// the signal's default action. Signals are blocked in every thread (threads
// inherit the mask, so make the watcher before any thread starts) and taken
// by one thread with sigwait: no work ever runs in a signal handler.
#pragma once

#include <atomic>
#include <csignal>
#include <stop_token>

namespace invidx::cli {

class InterruptWatcher {
public:
    // Blocks SIGINT and SIGTERM in this thread (threads made later inherit
    // the mask: make it before any work starts any) and takes them on a
    // thread of its own with sigwait: nothing runs in a signal handler.
    InterruptWatcher();

    std::stop_token token() const { return stop_.get_token(); }
    // The first signal taken; 0 while none came.
    int signal_number() const { return signal_.load(); }

private:
    void watch();

    sigset_t signals_;
    std::stop_source stop_;
    std::atomic<int> signal_{0};
};

}  // namespace invidx::cli
