#include "pipelines/progress.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <unistd.h>

#include "graph/seconds_since.hpp"
#include "graph/thread_names.hpp"

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

ProgressNotice ProgressReporter::notice(double seconds, bool finished) {
    ProgressNotice now{.seconds = seconds,
                       .input_bytes = state_.input_bytes_compressed,
                       .bytes_read = state_.bytes_read.load(),
                       .text_bytes = 0,
                       .documents = state_.documents.load(),
                       .tokens = state_.tokens_indexed.load(),
                       .finished = finished,
                       .text_bytes_parsed = state_.text_bytes_parsed.load(),  // before text_bytes: never above it
                       .bytes_done = 0,
                       .phase = phase_};
    now.text_bytes = state_.text_bytes.load();
    uint64_t estimate = now.input_bytes;
    if (now.phase == "indexing") {
        // The input read so far, in the share of its documents parsed: the
        // framed text stands for the bytes read (decompression ratios vary
        // little within a collection). Below the total until the graph has
        // drained, however close parsing comes: indexing is not done before.
        const double parsed_share =
            now.text_bytes == 0 ? 0.0
                                : std::min(1.0, static_cast<double>(now.text_bytes_parsed) / static_cast<double>(now.text_bytes));
        estimate = static_cast<uint64_t>(static_cast<double>(now.bytes_read) * parsed_share);
        if (now.input_bytes > 0) estimate = std::min(estimate, now.input_bytes - 1);
    }
    bytes_done_ = std::max(bytes_done_, estimate);
    now.bytes_done = bytes_done_;
    return now;
}

ProgressReporter::~ProgressReporter() { stop(); }

void ProgressReporter::enter_phase(const char* phase) {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    phase_ = phase;
    // At once, not at the next tick: a short phase would otherwise go unseen.
    report(true, bar_ || printed_);
}

void ProgressReporter::stop() {
    {
        std::lock_guard lock(mutex_);
        if (stopping_) return;
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (bar_ && printed_) std::fprintf(stderr, "\r\033[K");
    if (notify_) notify_(notice(seconds_since(start_), true));
}

std::string ProgressReporter::line(const ProgressNotice& now) const {
    const double total = static_cast<double>(now.input_bytes);
    const double done = static_cast<double>(now.bytes_done);
    const double text = static_cast<double>(now.text_bytes);
    const bool indexing = now.phase == "indexing";
    const double fraction = !indexing ? 1.0 : total > 0 ? std::min(1.0, done / total) : 0.0;
    char out[256];
    if (indexing) {
        const double mb_s = now.seconds > 0 ? text / 1e6 / now.seconds : 0.0;
        std::string eta = "?";
        if (fraction > 0.001) eta = human_seconds(now.seconds * (1 - fraction) / fraction);
        std::snprintf(out, sizeof out, "%5.1f%%  parsed %s of %s (read %s)  %llu docs  %s text  %.1f MB/s  ETA %s",
                      fraction * 100, human_bytes(done).c_str(), human_bytes(total).c_str(),
                      human_bytes(static_cast<double>(now.bytes_read)).c_str(),
                      static_cast<unsigned long long>(now.documents), human_bytes(text).c_str(), mb_s, eta.c_str());
    } else {
        const char* what = now.phase == kWriting ? "writing the dictionary and report" : "publishing the index";
        std::snprintf(out, sizeof out, "100.0%%  %llu docs indexed; %s", static_cast<unsigned long long>(now.documents),
                      what);
    }
    if (!bar_) return out;
    constexpr int width = 24;
    const int filled = static_cast<int>(fraction * width);
    return "[" + std::string(filled, '#') + std::string(width - filled, '.') + "] " + out;
}

void ProgressReporter::report(bool notify, bool print) {
    const ProgressNotice now = notice(seconds_since(start_), false);
    if (notify && notify_) notify_(now);
    if (!enabled_ || !print) return;
    const std::string text = line(now);
    if (bar_) {
        std::fprintf(stderr, "\r%s\033[K", text.c_str());
    } else {
        std::fprintf(stderr, "invidx-run: %s\n", text.c_str());
    }
    std::fflush(stderr);
    printed_ = true;
}

void ProgressReporter::loop() {
    name_this_thread("invidx-progress");
    using namespace std::chrono;
    const milliseconds print_period = bar_ ? milliseconds(250) : milliseconds(5000);
    const milliseconds tick = !enabled_ ? notify_interval_ : notify_ ? std::min(print_period, notify_interval_) : print_period;
    auto next_print = steady_clock::now() + print_period;
    auto next_notice = steady_clock::now() + notify_interval_;
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, tick, [this] { return stopping_; })) {
        const auto now = steady_clock::now();
        const bool notice_due = notify_ && now >= next_notice;
        const bool print_due = enabled_ && now >= next_print;
        if (!notice_due && !print_due) continue;
        if (notice_due) next_notice = now + notify_interval_;
        if (print_due) next_print = now + print_period;
        report(notice_due, print_due);
    }
}

}  // namespace invidx
