// Starts a built tool as a child process the test can signal: its pid, its
// stderr in a file, SIGINT and SIGTERM at their default disposition and
// unblocked whatever the test runner did with them (a background job's shell
// ignores SIGINT, which the child would inherit).
#pragma once

#include <doctest/doctest.h>

#include <cerrno>
#include <fcntl.h>
#include <filesystem>
#include <signal.h>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <vector>

extern char** environ;

namespace invidx::testing {

class SpawnedTool {
public:
    // `arguments` without the program; `environment` adds NAME=VALUE entries.
    SpawnedTool(const std::string& program, const std::vector<std::string>& arguments,
                const std::filesystem::path& stderr_file, const std::vector<std::string>& environment = {}) {
        std::vector<std::string> args{program};
        args.insert(args.end(), arguments.begin(), arguments.end());
        std::vector<char*> argv;
        for (auto& arg : args) argv.push_back(arg.data());
        argv.push_back(nullptr);
        std::vector<std::string> env_strings(environment);
        for (char** entry = environ; *entry; ++entry) env_strings.emplace_back(*entry);
        std::vector<char*> envp;
        for (auto& entry : env_strings) envp.push_back(entry.data());
        envp.push_back(nullptr);

        posix_spawn_file_actions_t files;
        posix_spawn_file_actions_init(&files);
        posix_spawn_file_actions_addopen(&files, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&files, 2, stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawnattr_t attributes;
        posix_spawnattr_init(&attributes);
        sigset_t defaults, none;
        sigemptyset(&defaults);
        sigaddset(&defaults, SIGINT);
        sigaddset(&defaults, SIGTERM);
        sigemptyset(&none);
        posix_spawnattr_setsigdefault(&attributes, &defaults);
        posix_spawnattr_setsigmask(&attributes, &none);
        posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
        const int error = posix_spawn(&pid_, program.c_str(), &files, &attributes, argv.data(), envp.data());
        posix_spawnattr_destroy(&attributes);
        posix_spawn_file_actions_destroy(&files);
        REQUIRE_MESSAGE(error == 0, "cannot start " << program);
    }
    ~SpawnedTool() {
        if (!reaped_) {
            ::kill(pid_, SIGKILL);
            wait();
        }
    }
    SpawnedTool(const SpawnedTool&) = delete;
    SpawnedTool& operator=(const SpawnedTool&) = delete;

    pid_t pid() const { return pid_; }
    void signal(int number) const { ::kill(pid_, number); }

    // The wait status once it has ended.
    int wait() {
        int status = 0;
        while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
        reaped_ = true;
        return status;
    }
    // Until it stops itself (SIGSTOP) or ends; true if it stopped.
    bool wait_until_stopped() {
        int status = 0;
        while (::waitpid(pid_, &status, WUNTRACED) < 0 && errno == EINTR) {
        }
        if (WIFSTOPPED(status)) return true;
        reaped_ = true;
        return false;
    }
    // Kills it and reaps it: no zombie keeps its pid.
    void kill_now() {
        if (reaped_) return;  // its pid may be another process's by now
        ::kill(pid_, SIGKILL);
        wait();
    }

private:
    pid_t pid_ = -1;
    bool reaped_ = false;
};

}  // namespace invidx::testing
