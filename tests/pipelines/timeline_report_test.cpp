// report.json's "timeline" (pipeline key report.timeline_ms): a row every
// interval with each node's columns, the last row's counters the report's
// totals; no timeline unless asked for.
#include <doctest/doctest.h>

#include <algorithm>

#include "support/collections.hpp"
#include "support/generated_warc.hpp"
#include "support/temp_dir.hpp"

using namespace invidx;
using namespace invidx::testing;

TEST_CASE("a build asked for a timeline reports one whose last row holds each node's totals") {
    TempDir dir;
    write_parts(dir, "in", generate_warc(4, 150, 5));
    const auto with_timeline = dir / "with";
    build_index(standard_pipeline({(dir / "in").string()}, with_timeline, 2, 1), {"report.timeline_ms=1"});
    IndexReader index(with_timeline);
    REQUIRE(index.report().has_value());
    const nlohmann::json& report = *index.report();
    REQUIRE(report.contains("timeline"));
    const nlohmann::json& timeline = report.at("timeline");
    const auto& columns = timeline.at("columns");
    const auto& rows = timeline.at("rows");
    REQUIRE(!rows.empty());
    CHECK(timeline.at("interval_seconds").get<double>() >= 0.001);
    const auto column = [&](const std::string& name) {
        for (size_t i = 0; i < columns.size(); ++i)
            if (columns[i] == name) return i;
        FAIL("no column " << name);
        return size_t{0};
    };
    double most_cores = 0;
    for (const auto& row : rows) {
        CHECK(row.size() == columns.size());
        CHECK(row.at(column("cpu_cores")).get<double>() >= 0);
        most_cores = std::max(most_cores, row.at(column("cpu_cores")).get<double>());
    }
    CHECK(most_cores > 0);  // the build used the CPU while it was sampled
    // The last row is sampled after the graph drained: nothing running, no
    // token held, and every node's items as the report counts them.
    const auto& last = rows.back();
    CHECK(last.at(column("tokens_in_flight")) == 0);
    for (const auto& node : report.at("nodes")) {
        const std::string name = node.at("name");
        CAPTURE(name);
        CHECK(last.at(column(name + ".active")) == 0);
        CHECK(last.at(column(name + ".items_in")) == node.at("items_in"));
        CHECK(last.at(column(name + ".items_out")) == node.at("items_out"));
    }
    // The rows span the pipeline (to the sampling thread's wake-ups).
    CHECK(last.at(0).get<double>() >= report.at("stages").at("pipeline").get<double>() * 0.9);

    const auto without = dir / "without";
    build_index(standard_pipeline({(dir / "in").string()}, without, 2, 1));
    IndexReader plain(without);
    CHECK_FALSE(plain.report()->contains("timeline"));
}
