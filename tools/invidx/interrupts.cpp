#include "tools/invidx/interrupts.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <thread>
#include <unistd.h>

namespace invidx::cli {

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
