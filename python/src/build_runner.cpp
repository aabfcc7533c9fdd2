#include "python/src/build_runner.hpp"

#include <chrono>

namespace py = pybind11;

namespace invidx::python {

BuildRunner::BuildRunner(py::object progress) : progress_(std::move(progress)) {
    options_.stop = stop_.get_token();
    if (!progress_.is_none()) {
        options_.progress = [this](const ProgressNotice& notice) { forward_progress(notice); };
        options_.progress_interval = std::chrono::milliseconds(500);
    }
}

BuildRunner::~BuildRunner() {
    if (!thread_.joinable()) return;
    stop_.request_stop();
    py::gil_scoped_release release;
    thread_.join();
}

void BuildRunner::start(std::function<BuildReport(const RunOptions&)> work) {
    thread_ = std::thread([this, work = std::move(work)] {
        std::optional<BuildReport> report;
        std::exception_ptr error;
        try {
            report = work(options_);
        } catch (...) {
            error = std::current_exception();
        }
        std::lock_guard lock(mutex_);
        report_ = std::move(report);
        build_error_ = error;
        done_ = true;
        done_changed_.notify_all();
    });
}

void BuildRunner::forward_progress(const ProgressNotice& notice) {
    py::gil_scoped_acquire gil;
    if (python_error_) return;  // stopping already: no more calls
    try {
        py::dict values;
        values["seconds"] = notice.seconds;
        values["input_bytes"] = notice.input_bytes;
        values["bytes_read"] = notice.bytes_read;
        values["text_bytes"] = notice.text_bytes;
        values["documents"] = notice.documents;
        values["tokens"] = notice.tokens;
        values["text_bytes_parsed"] = notice.text_bytes_parsed;
        values["bytes_done"] = notice.bytes_done;
        values["phase"] = notice.phase;
        values["finished"] = notice.finished;
        progress_(values);
    } catch (py::error_already_set& error) {
        record(std::move(error));
    } catch (const std::exception& error) {
        // Nothing may leave this callback for the engine's thread: kept as a Python error.
        PyErr_SetString(PyExc_RuntimeError, error.what());
        record(py::error_already_set());
    }
}

void BuildRunner::record(py::error_already_set error) {
    if (!python_error_) python_error_.emplace(std::move(error));
    stop_.request_stop();
}

bool BuildRunner::check_signals() {
    if (python_error_) return true;
    if (PyErr_CheckSignals() != 0) record(py::error_already_set());
    return python_error_.has_value();
}

void BuildRunner::wait() {
    if (!thread_.joinable()) return;
    bool signalled = has_python_error();
    {
        py::gil_scoped_release release;
        std::unique_lock lock(mutex_);
        while (!done_) {
            done_changed_.wait_for(lock, std::chrono::milliseconds(100));
            if (done_ || signalled) continue;
            lock.unlock();
            {
                py::gil_scoped_acquire gil;
                signalled = check_signals();
            }
            lock.lock();
        }
    }
    py::gil_scoped_release release;
    thread_.join();
}

py::object BuildRunner::result() {
    if (python_error_) {
        py::error_already_set error = std::move(*python_error_);
        python_error_.reset();
        throw error;
    }
    if (build_error_) std::rethrow_exception(build_error_);
    if (!report_) throw std::runtime_error("the build ended without a report");
    const std::string text = report_->json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return py::module_::import("json").attr("loads")(text);
}

}  // namespace invidx::python
