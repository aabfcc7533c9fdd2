#include "pipelines/progress.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <unistd.h>

#include "graph/seconds_since.hpp"

namespace invidx {
namespace {

std::string human_bytes(double bytes) {
    const char* units[] = {"B", "KB", "MB", "GB", "TB"};
    int unit = 0;
    while (bytes >= 1000 && unit < 4) {
        bytes /= 1000;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
    return text;
}

std::string human_seconds(double seconds) {
    char text[32];
    const auto s = static_cast<long>(seconds + 0.5);
    if (s >= 3600) {
        std::snprintf(text, sizeof text, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
    } else {
        std::snprintf(text, sizeof text, "%ldm%02lds", s / 60, s % 60);
    }
    return text;
}

}  // namespace

ProgressReporter::ProgressReporter(const RunState& state, ProgressMode mode,
                                   std::function<void(const ProgressNotice&)> notify,
                                   std::chrono::milliseconds notify_interval)
    : state_(state),
      notify_(std::move(notify)),
      notify_interval_(std::max(notify_interval, std::chrono::milliseconds(1))),
      start_(std::chrono::steady_clock::now()) {
    const bool terminal = isatty(STDERR_FILENO) != 0;
    enabled_ = mode != ProgressMode::off;
    bar_ = mode == ProgressMode::bar || (mode == ProgressMode::automatic && terminal);
    if (enabled_ || notify_) thread_ = std::thread([this] { loop(); });
}

ProgressNotice ProgressReporter::notice(double seconds, bool finished) const {
    return {.seconds = seconds,
            .input_bytes = state_.input_bytes_compressed,
            .bytes_read = state_.bytes_read.load(),
            .text_bytes = state_.text_bytes.load(),
            .documents = state_.documents.load(),
            .tokens = state_.tokens_indexed.load(),
            .finished = finished};
}

ProgressReporter::~ProgressReporter() { stop(); }

void ProgressReporter::stop() {
    {
        std::lock_guard lock(mutex_);
        if (stopping_) return;
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (notify_) notify_(notice(seconds_since(start_), true));
}

std::string ProgressReporter::line(double seconds) const {
    const double done = static_cast<double>(state_.bytes_read.load());
    const double total = static_cast<double>(state_.input_bytes_compressed);
    const double text = static_cast<double>(state_.text_bytes.load());
    const double fraction = total > 0 ? std::min(1.0, done / total) : 0.0;
    const double mb_s = seconds > 0 ? text / 1e6 / seconds : 0.0;
    std::string eta = "?";
    if (fraction > 0.001) eta = human_seconds(seconds * (1 - fraction) / fraction);
    char out[256];
    std::snprintf(out, sizeof out, "%5.1f%%  read %s of %s  %llu docs  %s text  %.1f MB/s  ETA %s", fraction * 100,
                  human_bytes(done).c_str(), human_bytes(total).c_str(),
                  static_cast<unsigned long long>(state_.documents.load()), human_bytes(text).c_str(), mb_s,
                  eta.c_str());
    if (!bar_) return out;
    constexpr int width = 24;
    const int filled = static_cast<int>(fraction * width);
    return "[" + std::string(filled, '#') + std::string(width - filled, '.') + "] " + out;
}

void ProgressReporter::loop() {
    using namespace std::chrono;
    const milliseconds print_period = bar_ ? milliseconds(250) : milliseconds(5000);
    const milliseconds tick = !enabled_ ? notify_interval_ : notify_ ? std::min(print_period, notify_interval_) : print_period;
    auto next_print = steady_clock::now() + print_period;
    auto next_notice = steady_clock::now() + notify_interval_;
    std::unique_lock lock(mutex_);
    bool printed = false;
    while (!wake_.wait_for(lock, tick, [this] { return stopping_; })) {
        const double seconds = seconds_since(start_);
        const auto now = steady_clock::now();
        if (notify_ && now >= next_notice) {
            next_notice = now + notify_interval_;
            notify_(notice(seconds, false));
        }
        if (!enabled_ || now < next_print) continue;
        next_print = now + print_period;
        const std::string text = line(seconds);
        if (bar_) {
            std::fprintf(stderr, "\r%s\033[K", text.c_str());
        } else {
            std::fprintf(stderr, "invidx-run: %s\n", text.c_str());
        }
        std::fflush(stderr);
        printed = true;
    }
    if (bar_ && printed) std::fprintf(stderr, "\r\033[K");
}

}  // namespace invidx
