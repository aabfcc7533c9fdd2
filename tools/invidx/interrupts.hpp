// SIGINT and SIGTERM for the commands that rewrite an index (merge, weight),
// as invidx-run takes them: the first becomes a stop request that the
// rewrite honours between batches (its temporary directory removed, the
// index left as it was; exit 128 + the signal: 130 or 143); a second ends
// the process at once, and the next writer removes what it left.
#pragma once

#include <functional>
#include <string>

#include "tools/common/interrupt_watcher.hpp"

namespace invidx::cli {

// The process-wide watcher, made on first use.
InterruptWatcher& interrupt_watcher();

// The one line an interrupted rewrite of `index` prints, and its exit code.
int report_interrupted(const std::string& command, const std::string& index);

// INVIDX_TEST_STOP_AT=STEP: a rewrite stops itself (SIGSTOP) at that step
// (MergeOptions::at_step) for a test to signal it, then waits for the
// signal's stop request; empty without the variable.
std::function<void(const std::string&)> test_stop_hook();

}  // namespace invidx::cli
