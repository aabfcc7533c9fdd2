// A dedicated thread that runs jobs one after another, in submission order.
// Nodes that wait on something outside the CPU (a GPU, for instance) hand
// their work to one through a oneTBB async_node, so no flow-graph worker
// thread ever blocks on a device: the node's body only queues the job.
//
// The queue needs no bound of its own: every job holds a message, every
// message holds a token's lease, and the engine has a fixed number of tokens.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

#include "graph/thread_names.hpp"

namespace invidx {

class AsyncWorker {
public:
    // `name`: the thread's (at most 15 bytes kept; graph/thread_names.hpp).
    explicit AsyncWorker(const char* name)
        : thread_([this, name] {
              name_this_thread(name);
              loop();
          }) {}
    AsyncWorker(const AsyncWorker&) = delete;
    AsyncWorker& operator=(const AsyncWorker&) = delete;

    // Runs the jobs already queued, then stops.
    ~AsyncWorker() {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_one();
        thread_.join();
    }

    // Jobs must not throw: they report failures themselves.
    void submit(std::function<void()> job) {
        {
            std::lock_guard lock(mutex_);
            jobs_.push_back(std::move(job));
        }
        wake_.notify_one();
    }

private:
    void loop() {
        for (;;) {
            std::function<void()> job;
            {
                std::unique_lock lock(mutex_);
                wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
                if (jobs_.empty()) return;
                job = std::move(jobs_.front());
                jobs_.pop_front();
            }
            job();
        }
    }

    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::function<void()>> jobs_;
    bool stopping_ = false;
    std::thread thread_;  // last: starts after the members it uses exist
};

}  // namespace invidx
