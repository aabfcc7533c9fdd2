// Threads by name: every thread invidx starts is named after its job (what
// `top -H` shows), and a build reports how much CPU each name used, so the
// CPU that no node's body accounts for (a flow-graph worker between tasks,
// a GPU's driver threads) is seen too (docs/PIPELINE.md, the report).
#pragma once

#include <map>
#include <string>
#include <sys/types.h>

#include <oneapi/tbb/task_scheduler_observer.h>

namespace invidx {

// Names the calling thread (Linux keeps the first 15 bytes); does nothing
// where threads cannot be named.
void name_this_thread(const char* name);

// The CPU time (user + system) of each live thread of this process, by id.
struct ThreadCpu {
    std::string name;
    double seconds = 0;
};
std::map<pid_t, ThreadCpu> thread_cpu_by_id();

// CPU seconds by thread name, from `before` to now: a thread alive in both
// counts its growth, one started since counts all of its time. Threads that
// ended meanwhile are absent (the caller knows the process's whole time).
std::map<std::string, double> thread_cpu_seconds_since(const std::map<pid_t, ThreadCpu>& before);

// Names the flow graph's worker threads "invidx-tbb" as they join the
// arena of the thread that makes it, while it exists.
class TbbWorkerNames : public oneapi::tbb::task_scheduler_observer {
public:
    TbbWorkerNames() { observe(true); }
    ~TbbWorkerNames() override { observe(false); }
    void on_scheduler_entry(bool is_worker) override;
};

}  // namespace invidx
