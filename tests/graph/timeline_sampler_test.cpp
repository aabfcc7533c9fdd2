// The timeline sampler (report.json "timeline"): rows of each node's state
// at an interval, ending with the counters as they are at stop(), and a
// bounded number of rows however long it runs.
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <thread>

#include "graph/timeline_sampler.hpp"
#include "graph/token_pool.hpp"
#include "invidx/config.hpp"
#include "invidx/error.hpp"

using invidx::NodeMetrics;
using invidx::TimelineSampler;
using invidx::TokenPool;
using std::chrono::milliseconds;

namespace {

size_t column_of(const nlohmann::json& timeline, const std::string& name) {
    const auto& columns = timeline.at("columns");
    for (size_t i = 0; i < columns.size(); ++i)
        if (columns[i] == name) return i;
    FAIL("no column " << name);
    return 0;
}

// Polls the sampler until `holds` is true of its JSON (what the test waits
// for must come: the sampler samples on its own thread); a test that sees
// nothing in 10 s fails.
template <class Holds>
nlohmann::json wait_for(const TimelineSampler& sampler, Holds holds) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (;;) {
        nlohmann::json timeline = sampler.to_json();
        if (holds(timeline)) return timeline;
        if (std::chrono::steady_clock::now() > give_up) FAIL("the sampler never showed what was waited for");
        std::this_thread::sleep_for(milliseconds(1));
    }
}

}  // namespace

TEST_CASE("a timeline row shows the bodies running then, the tokens held and cumulative items") {
    NodeMetrics a, b;
    TokenPool tokens(8);
    invidx::Lease held = tokens.acquire();
    TimelineSampler sampler({{"a", &a}, {"b", &b}}, &tokens, milliseconds(1));
    {
        auto busy = a.busy_scope();
        a.items_in += 3;
        const nlohmann::json seen = wait_for(sampler, [](const nlohmann::json& timeline) {
            for (const auto& row : timeline.at("rows"))
                if (row.at(column_of(timeline, "a.active")) == 1 && row.at(column_of(timeline, "a.items_in")) == 3)
                    return true;
            return false;
        });
        for (const auto& row : seen.at("rows")) {
            CHECK(row.at(column_of(seen, "b.active")) == 0);
            CHECK(row.at(column_of(seen, "tokens_in_flight")) == 1);
        }
        a.items_out += 2;
    }
    held = {};
    b.items_out += 5;
    sampler.stop();
    sampler.stop();  // once is enough
    const nlohmann::json timeline = sampler.to_json();
    CHECK(timeline.at("columns").size() == 3 + 2 * 4);
    const auto& rows = timeline.at("rows");
    REQUIRE(rows.size() >= 2);
    for (size_t i = 1; i < rows.size(); ++i) CHECK(rows[i].at(0).get<double>() >= rows[i - 1].at(0).get<double>());
    // The last row is taken at stop(): every counter as it ended.
    const auto& last = rows.back();
    CHECK(last.at(column_of(timeline, "a.active")) == 0);
    CHECK(last.at(column_of(timeline, "a.items_in")) == 3);
    CHECK(last.at(column_of(timeline, "a.items_out")) == 2);
    CHECK(last.at(column_of(timeline, "b.items_out")) == 5);
    CHECK(last.at(column_of(timeline, "tokens_in_flight")) == 0);
    // The busy rates, times their intervals, add up to the busy time (a's
    // one scope), to the rounding of the rates and of the row times.
    double busy_seconds = 0, previous = 0;
    for (const auto& row : rows) {
        const double at = row.at(0).get<double>();
        busy_seconds += row.at(column_of(timeline, "a.busy")).get<double>() * (at - previous);
        previous = at;
    }
    const double recorded = static_cast<double>(a.busy_ns.load()) * 1e-9;
    CHECK(busy_seconds == doctest::Approx(recorded).epsilon(0.2));
    for (const auto& row : rows) CHECK(row.at(column_of(timeline, "b.busy")).get<double>() == 0.0);
}

TEST_CASE("a long timeline keeps at most its row limit: every other row goes and the interval doubles") {
    NodeMetrics node;
    TimelineSampler sampler({{"n", &node}}, nullptr, milliseconds(1), 8);
    wait_for(sampler, [](const nlohmann::json& timeline) { return timeline.at("interval_seconds") >= 0.004; });
    node.items_in += 7;
    sampler.stop();
    const nlohmann::json timeline = sampler.to_json();
    const auto& rows = timeline.at("rows");
    CHECK(rows.size() <= 8);  // 8 samples at most: the first is time 0, not a row
    REQUIRE(!rows.empty());
    for (size_t i = 1; i < rows.size(); ++i) CHECK(rows[i].at(0).get<double>() >= rows[i - 1].at(0).get<double>());
    CHECK(rows.back().at(column_of(timeline, "n.items_in")) == 7);
    CHECK(rows.back().at(column_of(timeline, "tokens_in_flight")) == 0);  // no pool: always 0
}

TEST_CASE("report.timeline_ms is read from the pipeline, and a bad one is an error naming it") {
    nlohmann::json pipeline = {{"nodes", {{{"kind", "read"}}}}};
    CHECK(invidx::PipelineConfig::from_json(pipeline).report.timeline_ms == 0);
    pipeline["report"] = {{"timeline_ms", 20}};
    CHECK(invidx::PipelineConfig::from_json(pipeline).report.timeline_ms == 20);
    CHECK(invidx::PipelineConfig::from_json(pipeline, {"report.timeline_ms=5"}).report.timeline_ms == 5);
    pipeline["report"] = {{"timeline_ms", -1}};
    CHECK_THROWS_WITH_AS(invidx::PipelineConfig::from_json(pipeline), doctest::Contains("/report/timeline_ms"),
                         invidx::ConfigError);
    pipeline["report"] = {{"timeline", 5}};
    CHECK_THROWS_WITH_AS(invidx::PipelineConfig::from_json(pipeline), doctest::Contains("/report/timeline"),
                         invidx::ConfigError);
}
