// invidx-run as a long-running service sees it: interrupted (SIGINT, SIGTERM),
// killed (SIGKILL) anywhere, started twice into one output, restarted after a
// crash. The output always holds a complete index, the old or the new one.
#include <doctest/doctest.h>

#include <chrono>
#include <fcntl.h>
#include <random>
#include <sys/file.h>
#include <thread>
#include <unistd.h>

#include "support/collections.hpp"
#include "support/spawn_tool.hpp"
#include "support/temp_dir.hpp"

using namespace invidx::testing;
namespace fs = std::filesystem;

namespace {

std::string tool(const char* name) { return std::string(INVIDX_TOOLS_DIR) + "/" + name; }

// A WARC of generated pages; about 3 KB each.
std::string write_collection(const TempDir& dir, const std::string& name, uint32_t seed, size_t documents) {
    std::mt19937 random(seed);
    const auto words = test_vocabulary(random, 20000);
    std::string warc;
    for (size_t i = 0; i < documents; ++i)
        warc += warc_response(name + "-" + std::to_string(i), random_html(random, words, 400));
    return dir.write(name + ".warc", warc).string();
}

// The command line of a build of `input` into `output`, with small runs so
// that a build writes several run files.
std::vector<std::string> build_arguments(const TempDir& dir, const std::string& input, const fs::path& output) {
    const auto pipeline = dir / "pipeline.json";
    if (!fs::exists(pipeline)) dir.write("pipeline.json", standard_pipeline({input}, output, 2, 1).dump(2));
    return {pipeline.string(), "--input", input, "--output", output.string(), "--quiet", "--set", "memory.run_bytes=262144"};
}

// "<output>.tmp-*" and "<output>.old-*" beside the output.
std::vector<fs::path> leftovers(const fs::path& output) {
    std::vector<fs::path> found;
    const std::string name = output.filename().string();
    for (const auto& entry : fs::directory_iterator(output.parent_path())) {
        const std::string entry_name = entry.path().filename().string();
        if (entry_name.starts_with(name + ".tmp-") || entry_name.starts_with(name + ".old-")) found.push_back(entry.path());
    }
    return found;
}

// Until a build's temporary directory holds a run file: the build is under way.
void wait_until_runs_are_written(const fs::path& output) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
        for (const auto& dir : leftovers(output)) {
            std::error_code ignored;
            if (fs::exists(dir / "runs", ignored) && !fs::is_empty(dir / "runs", ignored)) return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    FAIL("no run file was written within 30 s");
}

int stats_exit_code(const fs::path& index) {
    const std::string command = "'" + tool("invidx") + "' stats '" + index.string() + "' >/dev/null 2>&1";
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Builds to the end and returns stderr; the build must succeed.
std::string build(const TempDir& dir, const std::string& input, const fs::path& output,
                  const std::vector<std::string>& environment = {}) {
    const auto err = dir / "build.err";
    SpawnedTool run(tool("invidx-run"), build_arguments(dir, input, output), err, environment);
    const int status = run.wait();
    const std::string messages = read_file(err);
    INFO(messages);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    return messages;
}

size_t line_count(const std::string& text) { return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')); }

}  // namespace

TEST_CASE("SIGINT and SIGTERM stop a build: one line, exit 130 or 143, no temporary directory, the old index intact") {
    TempDir dir;
    const auto small = write_collection(dir, "small", 1, 20);
    const auto large = write_collection(dir, "large", 2, 4000);
    const auto output = dir / "out" / "idx";
    build(dir, small, output);
    const std::string old_ciff = ciff_bytes(output);
    const auto full_start = std::chrono::steady_clock::now();
    build(dir, large, dir / "full" / "idx");
    const double full_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - full_start).count();

    for (const int signal_number : {SIGINT, SIGTERM}) {
        CAPTURE(signal_number);
        const auto err = dir / "interrupted.err";
        SpawnedTool run(tool("invidx-run"), build_arguments(dir, large, output), err);
        wait_until_runs_are_written(output);
        const auto signalled = std::chrono::steady_clock::now();
        run.signal(signal_number);
        const int status = run.wait();
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();
        const std::string messages = read_file(err);
        INFO(messages);
        REQUIRE(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == (signal_number == SIGINT ? 130 : 143));
        CHECK(line_count(messages) == 1);
        CHECK(messages.find(signal_number == SIGINT ? "interrupted by SIGINT" : "interrupted by SIGTERM") != std::string::npos);
        CHECK(messages.find("nothing published") != std::string::npos);
        // Promptly: the graph is cancelled, not run to its end (the signal
        // came with the first run files, most of the build still to do).
        CHECK(seconds < full_seconds / 2);
        CHECK(leftovers(output).empty());
        CHECK(stats_exit_code(output) == 0);
        CHECK(ciff_bytes(output) == old_ciff);
    }
}

TEST_CASE("a second signal ends invidx-run at once") {
    TempDir dir;
    const auto small = write_collection(dir, "small", 3, 20);
    const auto large = write_collection(dir, "large", 10, 2500);
    const auto output = dir / "out" / "idx";
    build(dir, small, output);
    const std::string old_ciff = ciff_bytes(output);
    // Both signals come in together mid-build (held back by SIGSTOP): the
    // first asks for the stop, the second ends the process before the
    // cancelled graph has even drained.
    SpawnedTool run(tool("invidx-run"), build_arguments(dir, large, output), dir / "run.err");
    wait_until_runs_are_written(output);
    run.signal(SIGSTOP);
    REQUIRE(run.wait_until_stopped());
    run.signal(SIGINT);
    run.signal(SIGTERM);
    run.signal(SIGCONT);
    const int status = run.wait();
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGTERM);
    CHECK(ciff_bytes(output) == old_ciff);
    // What it left (its temporary directory) goes with the next build.
    const auto left = leftovers(output);
    REQUIRE(left.size() == 1);
    const std::string messages = build(dir, small, output);
    CHECK(messages.find("removed " + left[0].string()) != std::string::npos);
    CHECK(leftovers(output).empty());
}

TEST_CASE("a second build into a locked output fails at once naming the first one's pid") {
    TempDir dir;
    const auto input = write_collection(dir, "small", 4, 20);
    const auto output = dir / "out" / "idx";
    // The first build holds the lock while it is stopped in publishing.
    SpawnedTool first(tool("invidx-run"), build_arguments(dir, input, output), dir / "first.err",
                      {"INVIDX_TEST_STOP_AT=publish:1"});
    REQUIRE(first.wait_until_stopped());
    const auto err = dir / "second.err";
    SpawnedTool second(tool("invidx-run"), build_arguments(dir, input, output), err);
    const int status = second.wait();
    const std::string messages = read_file(err);
    INFO(messages);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
    CHECK(messages.find("held by process " + std::to_string(first.pid())) != std::string::npos);
    CHECK(leftovers(output).size() == 1);  // the first one's, untouched
    // The first one goes on and publishes.
    first.signal(SIGCONT);
    const int first_status = first.wait();
    REQUIRE(WIFEXITED(first_status));
    CHECK(WEXITSTATUS(first_status) == 0);
    CHECK(stats_exit_code(output) == 0);
    CHECK(leftovers(output).empty());
}

TEST_CASE("temporary directories of dead builds are removed, those of a live one kept") {
    TempDir dir;
    const auto input = write_collection(dir, "small", 5, 20);
    const auto output = dir / "out" / "idx";
    build(dir, input, output);
    // A pid that is nobody's: a child that has ended and been reaped.
    SpawnedTool gone("/bin/true", {}, dir / "true.err");
    gone.wait();
    const std::string stale_name = "idx.tmp-" + std::to_string(gone.pid()) + "-0";
    const std::string live_name = "idx.tmp-" + std::to_string(::getpid()) + "-0";
    dir.write("out/" + stale_name + "/runs/run-000000.post", "half written");
    dir.write("out/" + live_name + "/runs/run-000000.post", "being written");
    const auto stale = dir / "out" / stale_name;
    const auto live = dir / "out" / live_name;

    SUBCASE("while the live build holds the lock, nothing is touched") {
        const int lock = ::open((output.string() + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        REQUIRE(lock >= 0);
        REQUIRE(::flock(lock, LOCK_EX | LOCK_NB) == 0);
        const auto err = dir / "locked.err";
        SpawnedTool run(tool("invidx-run"), build_arguments(dir, input, output), err);
        const int status = run.wait();
        ::close(lock);
        INFO(read_file(err));
        REQUIRE(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 1);
        CHECK(fs::exists(stale));
        CHECK(fs::exists(live));
    }
    SUBCASE("once no build holds the lock, they are leftovers and removed, each named") {
        fs::remove_all(live);
        const std::string messages = build(dir, input, output);
        CHECK(messages.find("removed " + stale.string()) != std::string::npos);
        CHECK(messages.find("process " + std::to_string(gone.pid())) != std::string::npos);
        CHECK(leftovers(output).empty());
    }
}

TEST_CASE("killed between the two renames of publishing: the next build restores the old index") {
    TempDir dir;
    const auto first_input = write_collection(dir, "first", 6, 20);
    const auto second_input = write_collection(dir, "second", 7, 30);
    const auto output = dir / "out" / "idx";
    build(dir, first_input, output);
    const std::string old_ciff = ciff_bytes(output);

    SpawnedTool run(tool("invidx-run"), build_arguments(dir, second_input, output), dir / "run.err",
                    {"INVIDX_TEST_PUBLISH=renames", "INVIDX_TEST_STOP_AT=publish:2"});
    REQUIRE(run.wait_until_stopped());
    run.kill_now();
    // Nothing at the output; the old index complete under the name the protocol gives.
    CHECK_FALSE(fs::exists(output));
    std::vector<fs::path> old_aside;
    for (const auto& path : leftovers(output))
        if (path.filename().string().starts_with("idx.old-" + std::to_string(run.pid()) + "-")) old_aside.push_back(path);
    REQUIRE(old_aside.size() == 1);
    CHECK(ciff_bytes(old_aside[0]) == old_ciff);

    const std::string messages = build(dir, second_input, output);
    CHECK(messages.find("restored " + output.string() + " from " + old_aside[0].string()) != std::string::npos);
    CHECK(leftovers(output).empty());
    CHECK(stats_exit_code(output) == 0);
    CHECK(ciff_bytes(output) != old_ciff);
}

TEST_CASE("SIGKILL anywhere in a multi-run build leaves the old or the new complete index, and the next build recovers") {
    TempDir dir;
    const std::string inputs[2] = {write_collection(dir, "a", 8, 900), write_collection(dir, "b", 9, 1000)};
    // Clean builds: the references, and how long a build takes.
    const auto reference = dir / "reference" / "idx";
    const auto output = dir / "out" / "idx";
    build(dir, inputs[0], reference);
    std::string reference_ciff[2];
    reference_ciff[0] = ciff_bytes(reference);
    const auto start = std::chrono::steady_clock::now();
    build(dir, inputs[1], output);
    const double build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    reference_ciff[1] = ciff_bytes(output);
    REQUIRE(reference_ciff[0] != reference_ciff[1]);
    REQUIRE(invidx::IndexReader(output).manifest().runs.size() > 2);

    const uint32_t seed = std::random_device{}();
    CAPTURE(seed);
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> delay(0.0, 1.2 * build_seconds);
    int current = 1;  // which reference the output holds
    int killed_before_publishing = 0;
    for (int kill = 0; kill < 20; ++kill) {
        const int target = 1 - current;  // old and new always differ
        // Every fifth kill at a step of publishing, the others at a random moment.
        const char* steps[] = {"publish:1", "publish:3"};
        const bool at_step = kill % 5 == 4;
        const std::string step = steps[(kill / 5) % 2];
        CAPTURE(kill);
        CAPTURE(target);
        std::vector<std::string> environment;
        if (at_step) environment.push_back("INVIDX_TEST_STOP_AT=" + step);
        SpawnedTool run(tool("invidx-run"), build_arguments(dir, inputs[target], output), dir / "killed.err", environment);
        if (at_step) {
            INFO(step);
            REQUIRE(run.wait_until_stopped());
        } else {
            std::this_thread::sleep_for(std::chrono::duration<double>(delay(random)));
        }
        run.kill_now();
        INFO(read_file(dir / "killed.err"));
        REQUIRE(stats_exit_code(output) == 0);
        const std::string ciff = ciff_bytes(output);
        const bool is_old = ciff == reference_ciff[current];
        const bool is_new = ciff == reference_ciff[target];
        CHECK((is_old || is_new));
        if (at_step) CHECK((step == "publish:3" ? is_new : is_old));
        if (is_old) ++killed_before_publishing;
        current = is_new ? target : current;
    }
    CHECK(killed_before_publishing > 2);  // else the kills tested little
    // The next build removes what the killed ones left and builds what a clean build does.
    const std::string messages = build(dir, inputs[0], output);
    INFO(messages);
    CHECK(leftovers(output).empty());
    CHECK(ciff_bytes(output) == reference_ciff[0]);
}
