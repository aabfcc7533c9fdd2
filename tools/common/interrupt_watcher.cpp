#include "tools/common/interrupt_watcher.hpp"

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

}  // namespace invidx::cli
