#include "graph/thread_names.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <pthread.h>
#include <unistd.h>

namespace invidx {

void name_this_thread(const char* name) {
#if defined(__linux__)
    char kept[16] = {};
    for (size_t i = 0; i < sizeof kept - 1 && name[i] != '\0'; ++i) kept[i] = name[i];
    pthread_setname_np(pthread_self(), kept);
#else
    (void)name;
#endif
}

std::map<pid_t, ThreadCpu> thread_cpu_by_id() {
    std::map<pid_t, ThreadCpu> threads;
    std::error_code error;
    const std::filesystem::path tasks("/proc/self/task");
    const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    if (ticks <= 0) return threads;
    for (const auto& entry : std::filesystem::directory_iterator(tasks, error)) {
        const pid_t id = static_cast<pid_t>(std::atol(entry.path().filename().c_str()));
        std::ifstream comm(entry.path() / "comm");
        std::ifstream stat(entry.path() / "stat");
        std::string name, line;
        if (!std::getline(comm, name) || !std::getline(stat, line)) continue;  // ended meanwhile
        // After the name in parentheses (which may hold spaces): state, then
        // 10 more fields; utime and stime are the 14th and 15th fields.
        const size_t close = line.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream fields(line.substr(close + 1));
        std::string field;
        unsigned long long utime = 0, stime = 0;
        for (int i = 3; i <= 15 && fields >> field; ++i) {
            if (i == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
            if (i == 15) stime = std::strtoull(field.c_str(), nullptr, 10);
        }
        threads[id] = ThreadCpu{name, static_cast<double>(utime + stime) / ticks};
    }
    return threads;
}

std::map<std::string, double> thread_cpu_seconds_since(const std::map<pid_t, ThreadCpu>& before) {
    std::map<std::string, double> by_name;
    for (const auto& [id, now] : thread_cpu_by_id()) {
        const auto earlier = before.find(id);
        const double since = earlier == before.end() ? now.seconds : now.seconds - earlier->second.seconds;
        by_name[now.name] += since;
    }
    return by_name;
}

void TbbWorkerNames::on_scheduler_entry(bool is_worker) {
    // A worker enters arenas many times: named once.
    thread_local bool named = false;
    if (is_worker && !named) {
        name_this_thread("invidx-tbb");
        named = true;
    }
}

}  // namespace invidx
