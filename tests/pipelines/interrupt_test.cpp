// Pipeline::run under a stop request (RunOptions::stop), as an embedding
// program or invidx-run's signal thread makes one: Interrupted, the graph
// drained, no temporary directory, the old index untouched.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <stop_token>
#include <thread>
#include <vector>

#include "support/collections.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;
namespace fs = std::filesystem;

namespace {

std::string write_collection(const TempDir& dir, uint32_t seed, size_t documents) {
    std::mt19937 random(seed);
    const auto words = test_vocabulary(random, 5000);
    std::string warc;
    for (size_t i = 0; i < documents; ++i) warc += warc_response("d" + std::to_string(i), random_html(random, words, 300));
    return dir.write("in-" + std::to_string(seed) + ".warc", warc).string();
}

bool temporary_directory_beside(const fs::path& output) {
    for (const auto& entry : fs::directory_iterator(output.parent_path()))
        if (entry.path().filename().string().starts_with(output.filename().string() + ".tmp-")) return true;
    return false;
}

}  // namespace

TEST_CASE("a stop requested while the graph runs ends run() with Interrupted and publishes nothing") {
    TempDir dir;
    const auto output = dir / "idx";
    build_index(standard_pipeline({write_collection(dir, 1, 10)}, output, 1, 1));
    const std::string old_ciff = ciff_bytes(output);
    const std::string input = write_collection(dir, 2, 5000);
    const auto full_start = std::chrono::steady_clock::now();
    build_index(standard_pipeline({input}, dir / "full", 2, 1), {"memory.run_bytes=65536"});
    const auto full_build = std::chrono::steady_clock::now() - full_start;

    Pipeline pipeline(PipelineConfig::from_json(standard_pipeline({input}, output, 2, 1), {"memory.run_bytes=65536"}));
    std::stop_source stop;
    std::atomic<std::chrono::steady_clock::time_point> stopped_at{};
    RunOptions options;
    options.stop = stop.get_token();
    // Stops once the first run file is written: the graph is surely running.
    std::jthread stopper([&](std::stop_token done) {
        while (!done.stop_requested()) {
            for (const auto& entry : fs::directory_iterator(dir.path())) {
                std::error_code ignored;
                if (entry.path().filename().string().starts_with("idx.tmp-") && !fs::is_empty(entry.path() / "runs", ignored)) {
                    stopped_at = std::chrono::steady_clock::now();
                    stop.request_stop();
                    return;
                }
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    });
    CHECK_THROWS_AS(pipeline.run(options), Interrupted);
    const auto stop_to_throw = std::chrono::steady_clock::now() - stopped_at.load();
    stopper.request_stop();
    stopper.join();
    REQUIRE(stop.stop_requested());
    // The graph was cancelled, not run to its end: the first run file came
    // early, and most of the build was still to do.
    CHECK(stop_to_throw < full_build / 4);
    CHECK_FALSE(temporary_directory_beside(output));
    CHECK(ciff_bytes(output) == old_ciff);

    SUBCASE("a stop requested before run() starts: nothing is even locked") {
        CHECK_THROWS_AS(pipeline.run(options), Interrupted);
        CHECK_FALSE(temporary_directory_beside(output));
    }
    SUBCASE("without a stop the same pipeline builds") {
        pipeline.run();
        CHECK(ciff_bytes(output) != old_ciff);
    }
}

TEST_CASE("RunOptions::progress: notices while the graph runs, then a last one with the totals") {
    TempDir dir;
    const std::string input = write_collection(dir, 3, 2000);
    Pipeline pipeline(PipelineConfig::from_json(standard_pipeline({input}, dir / "idx", 2, 1)));
    std::vector<ProgressNotice> notices;
    RunOptions options;
    options.progress_interval = std::chrono::milliseconds(1);
    options.progress = [&](const ProgressNotice& notice) { notices.push_back(notice); };
    const BuildReport report = pipeline.run(options);
    REQUIRE(notices.size() >= 2);
    CHECK(notices.back().finished);
    for (size_t i = 0; i + 1 < notices.size(); ++i) {
        CHECK_FALSE(notices[i].finished);
        CHECK(notices[i].documents <= notices[i + 1].documents);
        CHECK(notices[i].bytes_read <= notices[i + 1].bytes_read);
        CHECK(notices[i].seconds <= notices[i + 1].seconds);
    }
    CHECK(notices.back().documents == report.json.at("documents").get<uint64_t>());
    CHECK(notices.back().text_bytes == report.json.at("input_bytes_uncompressed").get<uint64_t>());
    CHECK(notices.back().bytes_read == notices.back().input_bytes);
}
