// report.json gives each node's CPU time inside its bodies
// (busy_cpu_seconds) beside its wall time there (busy_seconds), and the
// stages sum it per kind as they sum busy_seconds.
#include <doctest/doctest.h>

#include <thread>

#include "support/collections.hpp"
#include "support/generated_warc.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

namespace {

double cpu_seconds_of_kind(const nlohmann::json& nodes, const std::string& kind) {
    double total = 0;
    for (const auto& node : nodes)
        if (node.at("kind") == kind) total += node.at("busy_cpu_seconds").get<double>();
    return total;
}

}  // namespace

TEST_CASE("a build reports every node's busy CPU seconds next to its busy seconds") {
    TempDir dir;
    write_parts(dir, "in", generate_warc(5, 120, 3));  // gzip members: the decompress node inflates them
    const auto output = dir / "index";
    const BuildReport built = build_index(standard_pipeline({(dir / "in").string()}, output, 2, 1));

    IndexReader index(output);
    REQUIRE(index.report().has_value());
    const nlohmann::json& report = *index.report();  // as written into report.json
    REQUIRE(report.at("nodes").size() >= 8);
    for (const auto& node : report.at("nodes")) {
        CAPTURE(node.dump());
        REQUIRE(node.contains("busy_cpu_seconds"));
        const double cpu = node.at("busy_cpu_seconds").get<double>();
        CHECK(cpu >= 0);
        // Measured inside the same scopes as busy_seconds (the clocks may
        // differ by a little).
        CHECK(cpu <= node.at("busy_seconds").get<double>() + 0.01);
    }
    // The nodes that inflate and parse do use the CPU.
    CHECK(cpu_seconds_of_kind(report.at("nodes"), "decompress") > 0);
    CHECK(cpu_seconds_of_kind(report.at("nodes"), "parse") > 0);
    CHECK(cpu_seconds_of_kind(report.at("nodes"), "index") > 0);

    const nlohmann::json& stages = report.at("stages");
    CHECK(stages.at("parse_busy_cpu").get<double>() == doctest::Approx(cpu_seconds_of_kind(report.at("nodes"), "parse")));
    CHECK(stages.at("index_busy_cpu").get<double>() == doctest::Approx(cpu_seconds_of_kind(report.at("nodes"), "index")));
    CHECK(stages.at("post_processing_busy_cpu").get<double>() ==
          doctest::Approx(cpu_seconds_of_kind(report.at("nodes"), "compress") +
                          cpu_seconds_of_kind(report.at("nodes"), "flush")));
    CHECK(stages.contains("parse_busy"));  // the wall-time figures stay
    // The build's steps one after another, each timed once: together no
    // longer than the whole.
    double steps = 0;
    for (const char* step : {"plan", "setup", "sampling", "gpu_warm_up_wait", "pipeline", "finish", "ending"}) {
        CAPTURE(step);
        REQUIRE(stages.contains(step));
        CHECK(stages.at(step).get<double>() >= 0);
        steps += stages.at(step).get<double>();
    }
    CHECK(steps <= report.at("total_seconds").get<double>());
    CHECK(stages.at("pipeline").get<double>() > 0);
    // The index node's finish() combines the dictionary; the ending writes it.
    CHECK(stages.at("dictionary_combine").get<double>() <= stages.at("finish").get<double>());
    // Of the combine: the heap's trimming, and each indexer's export and freeing.
    CHECK(stages.at("dictionary_trim").get<double>() >= 0);
    CHECK(stages.at("dictionary_trim").get<double>() <= stages.at("dictionary_combine").get<double>());
    for (const auto& indexer : report.at("indexers")) {
        CHECK(indexer.at("export_seconds").get<double>() >= 0);
        CHECK(indexer.at("free_seconds").get<double>() >= 0);
        CHECK(indexer.at("export_seconds").get<double>() + indexer.at("free_seconds").get<double>() <=
              stages.at("dictionary_combine").get<double>());
    }
    CHECK(stages.at("dictionary_write").get<double>() <= stages.at("ending").get<double>());

    // The build's CPU time by thread name: the threads' growth during the
    // build only (this test process has used far more CPU before it), the
    // flow graph's workers among them.
    const nlohmann::json& by_thread = report.at("cpu_seconds_by_thread");
    REQUIRE(by_thread.contains("ended"));
    double named = 0;
    for (const auto& [name, seconds] : by_thread.items()) {
        CAPTURE(name);
        CHECK(seconds.get<double>() >= 0);
        if (name != "ended") named += seconds.get<double>();
    }
    // Clock ticks of 10 ms a thread.
    CHECK(named <= report.at("cpu_seconds").get<double>() + 0.01 * static_cast<double>(by_thread.size()));
    if (std::thread::hardware_concurrency() >= 2) CHECK(by_thread.contains("invidx-tbb"));

    // A CPU-only build page-locks no host memory (report's page_locked_host).
    REQUIRE(report.contains("page_locked_host"));
    CHECK(report.at("page_locked_host").at("allocations").get<uint64_t>() == 0);
    CHECK(report.at("page_locked_host").at("bytes").get<uint64_t>() == 0);

    // The summary invidx-run prints has the CPU seconds as a column.
    const std::string summary = built.summary_table();
    CHECK(summary.find("cpu s") != std::string::npos);
}
