// What page-locking host memory does to the threads around it. A build
// page-locks its GPU buffers (GPU inflate's 144 MiB, the parse slots'
// staging) while its decoders start, and those decoders fault in fresh
// memory: if page-locking holds the process's memory map, they wait.
//
// Worker threads allocate, touch and free 4 MiB buffers (what a decoder
// filling fresh blocks does); meanwhile this thread page-locks `--mib` of
// host memory one way or another. Printed per way: how long the locking
// took, and how many MB/s the workers touched before it and while it ran.
// The ways: cudaMallocHost in one call or in pieces; an mmap'd region
// registered with cudaHostRegister in one call or in pieces, its pages
// faulted in first ("-touched") or not, transparent huge pages asked for
// ("-huge") or not; and "invidx", what every GPU node uses
// (devices/cuda/common/page_locked_memory.hpp). Then how fast a
// host-to-device copy goes from each kind of buffer (a copy across two
// registrations is refused by CUDA, so "register-pieces" has none).
//
//   invidx_page_lock_stall [--threads 12] [--mib 144] [--piece-mib 8] [--rounds 3]
#include <cuda_runtime.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "devices/cuda/common/page_locked_memory.hpp"

namespace {

using Clock = std::chrono::steady_clock;

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
        std::exit(1);
    }
}

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// Bytes the workers have touched, and a flag to stop them.
struct Workers {
    std::atomic<uint64_t> touched{0};
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;

    explicit Workers(int count) {
        for (int i = 0; i < count; ++i) {
            threads.emplace_back([this] {
                const size_t bytes = size_t{4} << 20;
                while (!stop.load(std::memory_order_relaxed)) {
                    // Fresh memory each time, mapped and unmapped here:
                    // page faults, and the memory map taken for writing.
                    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                    if (p == MAP_FAILED) std::abort();
                    std::memset(p, 1, bytes);
                    munmap(p, bytes);
                    touched.fetch_add(bytes, std::memory_order_relaxed);
                }
            });
        }
    }
    ~Workers() {
        stop = true;
        for (auto& t : threads) t.join();
    }
    // MB/s touched over `s` seconds of sleeping.
    double rate_over(double s) {
        const uint64_t before = touched.load();
        const auto start = Clock::now();
        std::this_thread::sleep_for(std::chrono::duration<double>(s));
        return (touched.load() - before) / seconds(start, Clock::now()) / 1e6;
    }
};

// One way to page-lock `bytes`: makes it, returns what frees it.
struct Locked {
    std::vector<void*> allocations;    // cudaMallocHost pieces
    char* region = nullptr;            // an mmap'd region registered in pieces
    size_t region_bytes = 0;
    std::vector<char*> registered;
    invidx::cuda::PageLockedBlock block;  // "invidx"
    char* base = nullptr;              // the region's first registered byte
    double register_seconds = 0;       // the registering alone (not the touching)
    void release() {
        for (void* p : allocations) cudaFreeHost(p);
        for (char* p : registered) cudaHostUnregister(p);
        invidx::cuda::free_page_locked(block);
        if (region) munmap(region, region_bytes);
        *this = {};
    }
};

Locked lock_memory(const std::string& way, size_t bytes, size_t piece) {
    Locked locked;
    if (way == "invidx") {
        locked.block = invidx::cuda::allocate_page_locked(bytes);
        locked.base = static_cast<char*>(locked.block.data);
    } else if (way == "cudaMallocHost") {
        void* p = nullptr;
        check(cudaMallocHost(&p, bytes), "cudaMallocHost");
        locked.allocations.push_back(p);
    } else if (way == "cudaMallocHost-pieces") {
        for (size_t done = 0; done < bytes; done += piece) {
            void* p = nullptr;
            check(cudaMallocHost(&p, std::min(piece, bytes - done)), "cudaMallocHost");
            locked.allocations.push_back(p);
        }
    } else {
        // "register" (one call) or "register-pieces": an mmap'd region,
        // registered with the default flags;
        // "-huge": transparent huge pages asked for (2 MiB aligned);
        // "-touched": its pages made present by writing them first.
        const bool huge = way.find("-huge") != std::string::npos;
        const bool touched = way.find("-touched") != std::string::npos;
        const size_t align = size_t{2} << 20;
        locked.region_bytes = bytes + (huge ? align : 0);
        locked.region = static_cast<char*>(
            mmap(nullptr, locked.region_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
        if (locked.region == MAP_FAILED) std::abort();
        char* base = locked.region;
        if (huge) {
            base = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(base) + align - 1) & ~(align - 1));
            madvise(base, bytes, MADV_HUGEPAGE);
        }
        if (touched) std::memset(base, 0, bytes);
        const auto t0 = Clock::now();
        const size_t step = way.rfind("register-pieces", 0) == 0 ? piece : bytes;
        for (size_t done = 0; done < bytes; done += step) {
            char* at = base + done;
            check(cudaHostRegister(at, std::min(step, bytes - done), cudaHostRegisterDefault), "cudaHostRegister");
            locked.registered.push_back(at);
        }
        locked.register_seconds = seconds(t0, Clock::now());
        locked.base = base;
    }
    return locked;
}

double copy_gbps(const void* host, void* device, size_t bytes, cudaStream_t stream) {
    check(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream), "warm copy");
    check(cudaStreamSynchronize(stream), "sync");
    const auto start = Clock::now();
    for (int i = 0; i < 5; ++i) check(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream), "copy");
    check(cudaStreamSynchronize(stream), "sync");
    return 5.0 * bytes / seconds(start, Clock::now()) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
    int threads = 12, rounds = 3;
    size_t mib = 144, piece_mib = 8;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        const long value = std::atol(argv[i + 1]);
        if (flag == "--threads") threads = static_cast<int>(value);
        else if (flag == "--mib") mib = static_cast<size_t>(value);
        else if (flag == "--piece-mib") piece_mib = static_cast<size_t>(value);
        else if (flag == "--rounds") rounds = static_cast<int>(value);
        else {
            std::fprintf(stderr, "unknown flag %s\n", argv[i]);
            return 2;
        }
    }
    const size_t bytes = mib << 20, piece = piece_mib << 20;
    check(cudaFree(nullptr), "CUDA start");

    std::printf("way\tround\tlock_s\tregister_s\tworkers_MBps_before\tworkers_MBps_during\tduring/before\tworker_s_lost\n");
    const char* ways[] = {"cudaMallocHost", "cudaMallocHost-pieces", "register", "register-pieces",
                          "register-touched", "register-huge", "register-huge-touched", "invidx"};
    for (int round = 0; round < rounds; ++round) {
        for (const char* way : ways) {
            Workers workers(threads);
            const double before = workers.rate_over(0.15);
            const uint64_t touched_at_start = workers.touched.load();
            const auto start = Clock::now();
            Locked locked = lock_memory(way, bytes, piece);
            const auto end = Clock::now();
            const double lock_s = seconds(start, end);
            const double during = (workers.touched.load() - touched_at_start) / lock_s / 1e6;
            // Worker-seconds of touching lost while it ran: what a build's
            // decoders would lose.
            const double lost = threads * lock_s * std::max(0.0, 1.0 - during / before);
            std::printf("%s\t%d\t%.4f\t%.4f\t%.0f\t%.0f\t%.2f\t%.3f\n", way, round, lock_s, locked.register_seconds, before,
                        during, during / before, lost);
            locked.release();
        }
    }

    // Copy rates from each kind of buffer (64 MiB), one copy each time.
    const size_t copy_bytes = size_t{64} << 20;
    void* device = nullptr;
    check(cudaMalloc(&device, copy_bytes), "cudaMalloc");
    cudaStream_t stream;
    check(cudaStreamCreate(&stream), "stream");
    std::printf("\nbuffer\tH2D_GBps (64 MiB a copy)\n");
    for (const char* way : ways) {
        if (std::string(way) == "register-pieces") continue;  // a copy across registrations is refused
        Locked locked = lock_memory(way, copy_bytes, piece);
        // Pieces of cudaMallocHost are not contiguous: copy one piece's worth.
        const bool apart = std::string(way) == "cudaMallocHost-pieces";
        const void* host = apart ? locked.allocations.front() : (locked.base ? static_cast<void*>(locked.base)
                                                                            : locked.allocations.front());
        std::printf("%s%s\t%.1f\n", way, apart ? " (one piece)" : "", copy_gbps(host, device, apart ? piece : copy_bytes, stream));
        locked.release();
    }
    std::vector<char> pageable(copy_bytes, 1);
    std::printf("pageable\t%.1f\n", copy_gbps(pageable.data(), device, copy_bytes, stream));
    cudaStreamDestroy(stream);
    cudaFree(device);
    return 0;
}
