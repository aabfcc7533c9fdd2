// One build on a thread of its own while the calling Python thread waits
// with the GIL released, so other Python threads run meanwhile. Every
// 100 ms the waiting thread takes the GIL just long enough to run Python's
// signal handlers (PyErr_CheckSignals): a KeyboardInterrupt (Ctrl-C) asks
// the build to stop (RunOptions::stop: the graph is cancelled, the
// temporary directory removed, nothing published) and is raised once the
// build has ended. A progress callable is called with the GIL held, on the
// build's thread; an exception from it stops the build the same way and is
// raised instead.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>

#include <pybind11/pybind11.h>

#include "invidx/pipeline.hpp"

namespace invidx::python {

class BuildRunner {
public:
    // `progress`: a callable taking one dict per ProgressNotice, or None.
    explicit BuildRunner(pybind11::object progress);
    // Stops and joins a build still running (an exception left the caller).
    ~BuildRunner();
    BuildRunner(const BuildRunner&) = delete;
    BuildRunner& operator=(const BuildRunner&) = delete;

    // Starts `work` on the build thread with the runner's options. GIL held.
    void start(std::function<BuildReport(const RunOptions&)> work);

    // GIL held. Runs Python's signal handlers; an exception from them is
    // kept and the build asked to stop. True when an error is kept (from
    // here, the progress callable or record()).
    bool check_signals();
    // GIL held: keeps the Python error now set (the first one wins) and
    // asks the build to stop.
    void record(pybind11::error_already_set error);
    bool has_python_error() const { return python_error_.has_value(); }
    // Asks the build to stop (the producer of its documents failed).
    void stop() { stop_.request_stop(); }

    // GIL held (released while waiting): waits for the build, checking
    // signals every 100 ms until one raised.
    void wait();
    // After wait(), GIL held: report.json's content as a dict, or raises the
    // kept Python error, else the build's error (invidx::Interrupted as
    // KeyboardInterrupt).
    pybind11::object result();

private:
    void forward_progress(const ProgressNotice& notice);

    pybind11::object progress_;
    std::stop_source stop_;
    RunOptions options_;
    std::optional<pybind11::error_already_set> python_error_;  // touched with the GIL only
    std::mutex mutex_;
    std::condition_variable done_changed_;
    bool done_ = false;
    std::optional<BuildReport> report_;
    std::exception_ptr build_error_;
    std::thread thread_;
};

}  // namespace invidx::python
