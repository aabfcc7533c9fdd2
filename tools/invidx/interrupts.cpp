#include "tools/invidx/interrupts.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <thread>
#include <unistd.h>

namespace invidx::cli {

InterruptWatcher::InterruptWatcher() {
    sigemptyset(&signals_);
    sigaddset(&signals_, SIGINT);
    sigaddset(&signals_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
    // Detached and never destroyed: it may take a signal until exit.
    std::thread([this] { watch(); }).detach();
}

void InterruptWatcher::watch() {
    int number = 0;
    if (sigwait(&signals_, &number) != 0) return;
    signal_ = number;
    stop_.request_stop();
    if (sigwait(&signals_, &number) != 0) return;
    std::signal(number, SIG_DFL);
    pthread_sigmask(SIG_UNBLOCK, &signals_, nullptr);
    raise(number);
    _exit(128 + number);
}

InterruptWatcher& interrupt_watcher() {
    static InterruptWatcher& watcher = *new InterruptWatcher;  // never destroyed: its thread may outlive main
    return watcher;
}

int report_interrupted(const std::string& command, const std::string& index) {
    const int number = interrupt_watcher().signal_number() != 0 ? interrupt_watcher().signal_number() : SIGINT;
    std::fprintf(stderr, "invidx: %s interrupted by %s: stopped, temporary files removed, %s left as it was\n",
                 command.c_str(), number == SIGTERM ? "SIGTERM" : "SIGINT", index.c_str());
    return 128 + number;
}

std::function<void(const std::string&)> test_stop_hook() {
    const char* step = std::getenv("INVIDX_TEST_STOP_AT");
    if (step == nullptr || *step == '\0') return {};
    return [stop_at = std::string(step)](const std::string& reached) {
        if (reached != stop_at) return;
        std::fprintf(stderr, "invidx: stopping at %s (INVIDX_TEST_STOP_AT)\n", reached.c_str());
        std::fflush(stderr);
        raise(SIGSTOP);
        // Continued: the test signalled first; its stop request comes on the
        // watcher's thread, so wait for it rather than race past it.
        const auto token = interrupt_watcher().token();
        for (int waited = 0; waited < 1000 && !token.stop_requested(); ++waited)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
    };
}

}  // namespace invidx::cli
