// SIGINT and SIGTERM for the commands that rewrite an index (merge, weight),
// as invidx-run takes them: the first becomes a stop request that the
// rewrite honours between batches (its temporary directory removed, the
// index left as it was; exit 128 + the signal: 130 or 143); a second ends
// the process at once, and the next writer removes what it left.
#pragma once

#include <atomic>
#include <csignal>
#include <functional>
#include <stop_token>
#include <string>

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

// The process-wide watcher, made on first use.
InterruptWatcher& interrupt_watcher();

// The one line an interrupted rewrite of `index` prints, and its exit code.
int report_interrupted(const std::string& command, const std::string& index);

// INVIDX_TEST_STOP_AT=STEP: a rewrite stops itself (SIGSTOP) at that step
// (MergeOptions::at_step) for a test to signal it, then waits for the
// signal's stop request; empty without the variable.
std::function<void(const std::string&)> test_stop_hook();

}  // namespace invidx::cli
