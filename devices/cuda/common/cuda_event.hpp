// A CUDA event owned for a scope, for timing work on a stream: record it
// between launches, read the elapsed time once the stream has synchronized.
// Also how a host thread waits for its stream (wait_yielding).
#pragma once

#include <cuda_runtime.h>

#include <time.h>

#include <cstdint>
#include <thread>

#include "devices/cuda/common/cuda_check.hpp"

namespace invidx::cuda {

class ScopedEvent {
public:
    ScopedEvent() { check(cudaEventCreate(&event_), "cudaEventCreate"); }
    explicit ScopedEvent(unsigned flags) { check(cudaEventCreateWithFlags(&event_, flags), "cudaEventCreateWithFlags"); }
    ~ScopedEvent() { cudaEventDestroy(event_); }  // destructor path: errors have nowhere to go
    ScopedEvent(const ScopedEvent&) = delete;
    ScopedEvent& operator=(const ScopedEvent&) = delete;

    void record(cudaStream_t stream) { check(cudaEventRecord(event_, stream), "cudaEventRecord"); }

    // Seconds from `earlier` to this event; both recorded and complete.
    double seconds_since(const ScopedEvent& earlier) const {
        float ms = 0;
        check(cudaEventElapsedTime(&ms, earlier.event_, event_), "cudaEventElapsedTime");
        return static_cast<double>(ms) * 1e-3;
    }

    cudaEvent_t get() const { return event_; }

private:
    cudaEvent_t event_ = nullptr;
};

// Waits for everything queued on `stream` so far by polling an event and
// yielding the CPU between polls (what cudaDeviceScheduleYield does, kept to
// these waits). cudaStreamSynchronize spins with CUDA's default schedule on
// a machine of many CPUs, holding a core the flow graph's workers may need
// for as long as the device works; a blocking-sync event frees the core but
// its wake-up adds latency to every batch, and a build with all its batches
// in flight (memory.tokens) slows by that latency (docs/PERFORMANCE.md,
// "GPU parsers"). A yielding poll returns as soon as the work is
// done and lets any runnable thread have the core meanwhile.
// The CPU time each thread has spent polling here (devices/gpu_devices.hpp,
// gpu_wait_cpu_ns): counted only where the first poll found work left.
extern thread_local uint64_t this_thread_wait_cpu_ns;

inline uint64_t thread_cpu_time_ns() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<uint64_t>(now.tv_sec) * 1000000000ull + static_cast<uint64_t>(now.tv_nsec);
}

// Polls `recorded` until it completes, calling `pause` between polls.
template <class Pause>
void wait_polling(cudaEvent_t recorded, const char* what, Pause pause) {
    cudaError_t state = cudaEventQuery(recorded);
    if (state == cudaSuccess) return;
    const uint64_t cpu_at_start = thread_cpu_time_ns();
    for (;;) {
        if (state != cudaErrorNotReady) {
            this_thread_wait_cpu_ns += thread_cpu_time_ns() - cpu_at_start;
            check(state, what);
        }
        pause();
        state = cudaEventQuery(recorded);
        if (state == cudaSuccess) break;
    }
    this_thread_wait_cpu_ns += thread_cpu_time_ns() - cpu_at_start;
}

inline void wait_yielding(cudaEvent_t recorded, const char* what) {
    wait_polling(recorded, what, [] { std::this_thread::yield(); });
}

// The same wait, sleeping `nap_ns` between polls instead of yielding: for
// short device steps a thread waits on many times a batch while every core
// is busy (the GPU parse slots' read-backs). A yielding thread stays
// runnable and, behind the flow graph's busy workers, may get its core back
// only when their time slice ends; a sleeping one is woken by its timer and
// runs at once, so it sees the step end sooner and uses less CPU polling
// (docs/PERFORMANCE.md, "GPU parsers").
inline void wait_napping(cudaEvent_t recorded, const char* what, long nap_ns) {
    wait_polling(recorded, what, [nap_ns] {
        const timespec nap{0, nap_ns};
        nanosleep(&nap, nullptr);
    });
}

inline void wait_yielding(cudaStream_t stream, ScopedEvent& event, const char* what) {
    event.record(stream);
    wait_yielding(event.get(), what);
}

inline void wait_napping(cudaStream_t stream, ScopedEvent& event, const char* what, long nap_ns) {
    event.record(stream);
    wait_napping(event.get(), what, nap_ns);
}

}  // namespace invidx::cuda
