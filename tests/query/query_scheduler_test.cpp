// The CPU/GPU query scheduler (query/query_scheduler) with
// fake processors: which device runs a query is controlled by gates the test
// opens and by a manual clock, never by how long something takes. Then the
// real thing: the scheduler over a Searcher, and `invidx search --device auto`,
// give exactly the CPU's results.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "query/query_cost_model.hpp"
#include "query/query_error.hpp"
#include "query/query_scheduler.hpp"
#include "query/searcher.hpp"
#include "query/searcher_processors.hpp"
#include "store/merge.hpp"
#include "support/collections.hpp"
#include "support/run_tool.hpp"
#include "support/temp_dir.hpp"
#include "support/text_index.hpp"

using namespace invidx;
using namespace invidx::testing;
using namespace std::chrono_literals;

namespace {

// A clock that moves only when told (so no query turns urgent by itself).
struct ManualClock {
    std::atomic<int64_t> now_ns{1'000'000'000};
    void advance(std::chrono::nanoseconds by) { now_ns += by.count(); }
    std::function<SchedulerClock::time_point()> function() {
        return [this] { return SchedulerClock::time_point(std::chrono::nanoseconds(now_ns.load())); };
    }
};

// What the fake processors did, and gates that hold them.
class FakeDevices {
public:
    // Queries whose position is in `held` wait for open(position) before running.
    void hold(size_t position) {
        std::lock_guard lock(mutex_);
        held_[position] = true;
    }
    void open(size_t position) {
        std::lock_guard lock(mutex_);
        held_[position] = false;
        changed_.notify_all();
    }
    // Every gate open from now on (a failed REQUIRE must not leave a worker held).
    void open_all() {
        std::lock_guard lock(mutex_);
        all_open_ = true;
        changed_.notify_all();
    }
    void fail(size_t position) {
        std::lock_guard lock(mutex_);
        failing_.push_back(position);
    }
    // Waits (30 s at most, so a broken scheduler fails rather than hangs)
    // until `count` queries have started on `device`.
    bool wait_started(QueryDevice device, size_t count) {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, 30s, [&] { return started(device) >= count; });
    }
    bool wait_ran(size_t position) {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, 30s, [&] { return runs_.contains(position); });
    }

    QueryProcessors processors(bool with_gpu) {
        QueryProcessors processors;
        processors.cpu = [this](const QueryJob& job, size_t) { return run(QueryDevice::kCpu, job); };
        if (with_gpu) {
            processors.gpu = [this](std::span<const QueryJob* const> batch) {
                {
                    std::lock_guard lock(mutex_);
                    batch_sizes_.push_back(batch.size());
                }
                std::vector<SearchResult> results;
                for (const QueryJob* job : batch) results.push_back(run(QueryDevice::kGpu, *job));
                return results;
            };
        }
        return processors;
    }

    std::map<size_t, std::vector<QueryDevice>> runs() {
        std::lock_guard lock(mutex_);
        return runs_;
    }
    std::vector<size_t> order() {
        std::lock_guard lock(mutex_);
        return order_;
    }
    std::vector<size_t> batch_sizes() {
        std::lock_guard lock(mutex_);
        return batch_sizes_;
    }

private:
    size_t started(QueryDevice device) const { return device == QueryDevice::kCpu ? cpu_started_ : gpu_started_; }

    // A result that names its query: hit docid = position.
    SearchResult run(QueryDevice device, const QueryJob& job) {
        std::unique_lock lock(mutex_);
        ++(device == QueryDevice::kCpu ? cpu_started_ : gpu_started_);
        changed_.notify_all();
        changed_.wait(lock, [&] { return all_open_ || !held_[job.position]; });
        runs_[job.position].push_back(device);
        order_.push_back(job.position);
        changed_.notify_all();
        if (std::find(failing_.begin(), failing_.end(), job.position) != failing_.end()) {
            throw std::runtime_error("query " + std::to_string(job.position) + " failed");
        }
        SearchResult result;
        result.hits.push_back(ScoredDocument{static_cast<uint32_t>(job.position), static_cast<double>(job.position)});
        return result;
    }

    std::mutex mutex_;
    std::condition_variable changed_;
    std::map<size_t, bool> held_;
    bool all_open_ = false;
    std::vector<size_t> failing_;
    std::map<size_t, std::vector<QueryDevice>> runs_;
    std::vector<size_t> order_;
    std::vector<size_t> batch_sizes_;
    size_t cpu_started_ = 0;
    size_t gpu_started_ = 0;
};

// Declared after the scheduler: opens every gate before the scheduler's
// destructor waits for its running queries, also when a REQUIRE failed.
struct OpenGatesOnExit {
    FakeDevices& devices;
    ~OpenGatesOnExit() { devices.open_all(); }
};

// Fixed lines, no learning: CPU 1 µs + 1 ns a posting, GPU 100 µs + 0.01 ns.
void use_fixed_lines(QueryCostModel& model) {
    model.set_learning(false);
    model.set_line(QueryDevice::kCpu, QueryMode::kOr, {1'000.0, 1.0});
    model.set_line(QueryDevice::kGpu, QueryMode::kOr, {100'000.0, 0.01});
}

QueryFeatures features(uint64_t postings, bool phrase = false) {
    return QueryFeatures{.mode = QueryMode::kOr, .k = 10, .terms = 1, .postings = postings, .shortest = postings,
                         .runs_at_all = true, .phrase = phrase};
}

// Under use_fixed_lines(): CPU 10 ms vs GPU 0.2 ms; CPU 1 µs vs GPU 100 µs; about even.
// (Queues of a few dozen never make stealing either of the first two pay.)
const QueryFeatures kGpuSuited = features(10'000'000);
const QueryFeatures kCpuSuited = features(10);
const QueryFeatures kEven = features(100'000);

SchedulerOptions options(size_t cpu_workers, ManualClock* clock = nullptr) {
    SchedulerOptions options;
    options.cpu_workers = cpu_workers;
    if (clock) options.clock = clock->function();
    return options;
}

void check_answers_in_order(const std::vector<QueryOutcome>& outcomes) {
    for (size_t i = 0; i < outcomes.size(); ++i) {
        CAPTURE(i);
        REQUIRE(outcomes[i].result.hits.size() == 1);
        CHECK(outcomes[i].result.hits[0].docid == i);
    }
}

}  // namespace

// What most tests start from: a still clock, fake devices, fixed cost lines.
struct FixedRig {
    ManualClock clock;
    FakeDevices devices;
    QueryCostModel model;
    FixedRig() { use_fixed_lines(model); }
};

TEST_CASE("cost model: default lines, then a least-squares fit of the measured times") {
    QueryCostModel model;
    const CostLine cpu_or = QueryCostModel::default_line(QueryDevice::kCpu, QueryMode::kOr);
    CHECK(model.line(QueryDevice::kCpu, QueryMode::kOr).fixed_ns == cpu_or.fixed_ns);
    // Long lists are cheaper on the GPU by default, a short one on the CPU.
    CHECK(preferred_device(model, features(5'000'000), true) == QueryDevice::kGpu);
    CHECK(preferred_device(model, features(100), true) == QueryDevice::kCpu);
    CHECK(preferred_device(model, features(5'000'000), false) == QueryDevice::kCpu);
    CHECK(preferred_device(model, features(5'000'000, true), true) == QueryDevice::kCpu);  // a phrase

    // Too few samples keep the defaults; then y = 5000 + 3x exactly.
    for (size_t i = 0; i + 1 < QueryCostModel::kMinimumSamples; ++i) model.record(QueryDevice::kCpu, QueryMode::kOr, 1000.0 * i, 5000.0 + 3000.0 * i);
    CHECK(model.line(QueryDevice::kCpu, QueryMode::kOr).per_work_ns == cpu_or.per_work_ns);
    for (size_t i = 0; i < 20; ++i) model.record(QueryDevice::kCpu, QueryMode::kOr, 1000.0 * i, 5000.0 + 3000.0 * i);
    CHECK(model.line(QueryDevice::kCpu, QueryMode::kOr).fixed_ns == doctest::Approx(5000.0));
    CHECK(model.line(QueryDevice::kCpu, QueryMode::kOr).per_work_ns == doctest::Approx(3.0));
    CHECK(model.estimate(features(2000)).cpu_ns == doctest::Approx(11000.0));
    // Other lines are untouched.
    CHECK(model.line(QueryDevice::kGpu, QueryMode::kOr).fixed_ns ==
          QueryCostModel::default_line(QueryDevice::kGpu, QueryMode::kOr).fixed_ns);

    // A GPU batch is one sample of its mean query: 4 queries of work 1000 in 4 × (200 + 1000) ns.
    for (int i = 0; i < 4; ++i) model.record(QueryDevice::kGpu, QueryMode::kAnd, 1000.0 * i, 4 * (200.0 + 1000.0 * i), 4);
    CHECK(model.line(QueryDevice::kGpu, QueryMode::kAnd).fixed_ns == doctest::Approx(200.0));
    CHECK(model.line(QueryDevice::kGpu, QueryMode::kAnd).per_work_ns == doctest::Approx(1.0));

    // Times that fall with more work cannot make a negative slope.
    QueryCostModel falling;
    for (int i = 0; i < 10; ++i) falling.record(QueryDevice::kCpu, QueryMode::kAnd, 100.0 * i, 10000.0 - 10.0 * i);
    CHECK(falling.line(QueryDevice::kCpu, QueryMode::kAnd).per_work_ns == 0.0);
    CHECK(falling.line(QueryDevice::kCpu, QueryMode::kAnd).fixed_ns == doctest::Approx(9955.0));

    // Frozen: samples are ignored.
    QueryCostModel frozen;
    use_fixed_lines(frozen);
    for (int i = 0; i < 20; ++i) frozen.record(QueryDevice::kCpu, QueryMode::kOr, 10.0 * i, 1e9);
    CHECK(frozen.line(QueryDevice::kCpu, QueryMode::kOr).per_work_ns == 1.0);
}

TEST_CASE("scheduler: the measured times train the cost model as queries finish") {
    ManualClock clock;
    QueryCostModel model;  // default lines, learning
    QueryProcessors processors;
    // Each query "takes" 2 µs + 5 ns a posting on the manual clock.
    processors.cpu = [&clock](const QueryJob& job, size_t) {
        clock.advance(std::chrono::nanoseconds(2'000 + 5 * static_cast<int64_t>(job.features.postings)));
        return SearchResult{};
    };
    SchedulerOptions scheduling = options(1, &clock);
    scheduling.deadline = std::nullopt;
    QueryScheduler scheduler(std::move(processors), model, scheduling);
    for (size_t i = 0; i < 40; ++i) scheduler.submit("q", features(100 * (i % 10 + 1)));
    const auto outcomes = scheduler.finish();
    CHECK(model.line(QueryDevice::kCpu, QueryMode::kOr).fixed_ns == doctest::Approx(2'000.0));
    CHECK(model.line(QueryDevice::kCpu, QueryMode::kOr).per_work_ns == doctest::Approx(5.0));
    CHECK(outcomes[39].finish - outcomes[39].start == std::chrono::nanoseconds(2'000 + 5 * 1'000));
}

TEST_CASE("scheduler: every query runs exactly once, outcomes in submission order") {
    for (const bool with_gpu : {true, false}) {
        for (const bool deadlines : {true, false}) {
            CAPTURE(with_gpu);
            CAPTURE(deadlines);
            FixedRig rig;
            auto& [clock, devices, model] = rig;
            SchedulerOptions scheduling = options(3);
            scheduling.max_gpu_batch = 4;
            if (!deadlines) scheduling.deadline = std::nullopt;
            QueryScheduler scheduler(devices.processors(with_gpu), model, scheduling);
            const OpenGatesOnExit release_scheduler{devices};
            std::mt19937 random(5);
            const QueryFeatures kinds[] = {kGpuSuited, kCpuSuited, kEven, features(50, true)};
            for (size_t i = 0; i < 300; ++i) scheduler.submit("q" + std::to_string(i), kinds[random() % 4]);
            const auto outcomes = scheduler.finish();
            REQUIRE(outcomes.size() == 300);
            check_answers_in_order(outcomes);
            const auto runs = devices.runs();
            REQUIRE(runs.size() == 300);
            for (size_t i = 0; i < outcomes.size(); ++i) {
                CAPTURE(i);
                REQUIRE(runs.at(i).size() == 1);
                REQUIRE(outcomes[i].device.has_value());
                CHECK(*outcomes[i].device == runs.at(i).front());
                CHECK(!outcomes[i].error);
                CHECK(outcomes[i].arrival <= outcomes[i].start);
                CHECK(outcomes[i].start <= outcomes[i].finish);
                if (!with_gpu) CHECK(outcomes[i].affinity == QueryAffinity::kCpuOnly);
                if (outcomes[i].affinity == QueryAffinity::kCpuOnly) CHECK(*outcomes[i].device == QueryDevice::kCpu);
            }
            const auto counters = scheduler.counters();
            CHECK(counters.cpu_queries + counters.gpu_queries == 300);
            if (!with_gpu) CHECK(counters.gpu_queries == 0);
        }
    }
}

TEST_CASE("scheduler: with both idle, GPU-suited queries run on the GPU and CPU-suited on the CPU") {
    FixedRig rig;  // still: nothing turns urgent
    auto& [clock, devices, model] = rig;
    QueryScheduler scheduler(devices.processors(true), model, options(2, &clock));
    const OpenGatesOnExit release_scheduler{devices};
    for (size_t i = 0; i < 40; ++i) scheduler.submit("q", i % 2 == 0 ? kGpuSuited : kCpuSuited);
    const auto outcomes = scheduler.finish();
    check_answers_in_order(outcomes);
    for (size_t i = 0; i < 40; ++i) {
        CAPTURE(i);
        CHECK(outcomes[i].affinity == (i % 2 == 0 ? QueryAffinity::kGpu : QueryAffinity::kCpu));
        CHECK(*outcomes[i].device == (i % 2 == 0 ? QueryDevice::kGpu : QueryDevice::kCpu));
        CHECK(!outcomes[i].stolen);
    }
    CHECK(scheduler.counters().stolen == 0);

    // A phrase, GPU-suited by its lists, runs on the CPU. (Alone: its 10 ms
    // estimate in the CPU queue would rightly send CPU-suited queries to the GPU.)
    QueryScheduler phrases(devices.processors(true), model, options(2, &clock));
    const OpenGatesOnExit release_phrases{devices};
    phrases.submit("\"a phrase\"", features(10'000'000, true));
    const auto phrase = phrases.finish();
    CHECK(phrase[0].affinity == QueryAffinity::kCpuOnly);
    CHECK(*phrase[0].device == QueryDevice::kCpu);
}

TEST_CASE("scheduler: idle CPU workers steal from a long GPU queue, and the GPU from a long CPU queue") {
    SUBCASE("the GPU is stuck") {
        FixedRig rig;
        auto& [clock, devices, model] = rig;
        QueryScheduler scheduler(devices.processors(true), model, options(2, &clock));
        const OpenGatesOnExit release_scheduler{devices};
        devices.hold(0);
        scheduler.submit("blocker", kGpuSuited);
        REQUIRE(devices.wait_started(QueryDevice::kGpu, 1));
        // 1.001 ms each on the CPU vs 0.11 ms on the GPU, 0.0225 ms in a full
        // batch of 8 (the 0.1 ms fixed part shared): a queue of 45 or more
        // makes the wait there longer than running one here.
        const QueryFeatures mild = features(1'000'000);
        for (size_t i = 1; i <= 60; ++i) scheduler.submit("q", mild);
        REQUIRE(devices.wait_started(QueryDevice::kCpu, 1));
        devices.open(0);
        const auto outcomes = scheduler.finish();
        check_answers_in_order(outcomes);
        size_t stolen = 0;
        for (const auto& outcome : outcomes) {
            CHECK(outcome.affinity == QueryAffinity::kGpu);
            if (outcome.stolen) {
                ++stolen;
                CHECK(*outcome.device == QueryDevice::kCpu);
            }
        }
        CHECK(stolen >= 1);
        CHECK(scheduler.counters().stolen == stolen);
    }
    SUBCASE("the only CPU worker is stuck") {
        FixedRig rig;
        auto& [clock, devices, model] = rig;
        QueryScheduler scheduler(devices.processors(true), model, options(1, &clock));
        const OpenGatesOnExit release_scheduler{devices};
        devices.hold(0);
        scheduler.submit("blocker", kCpuSuited);
        REQUIRE(devices.wait_started(QueryDevice::kCpu, 1));
        // 11 µs here, 100 µs on the GPU: a queue of 10 makes the GPU worth it.
        for (size_t i = 1; i <= 30; ++i) scheduler.submit("q", features(10'000));
        REQUIRE(devices.wait_started(QueryDevice::kGpu, 1));
        devices.open(0);
        const auto outcomes = scheduler.finish();
        check_answers_in_order(outcomes);
        size_t on_gpu = 0;
        for (const auto& outcome : outcomes) {
            if (*outcome.device == QueryDevice::kGpu) {
                ++on_gpu;
                CHECK(outcome.stolen);
                CHECK(outcome.affinity == QueryAffinity::kCpu);
            }
        }
        CHECK(on_gpu >= 1);
    }
}

TEST_CASE("scheduler: a query that has used half its time goes first") {
    SUBCASE("in the same queue") {
        FixedRig rig;
        auto& [clock, devices, model] = rig;
        QueryScheduler scheduler(devices.processors(false), model, options(1, &clock));
        const OpenGatesOnExit release_scheduler{devices};
        devices.hold(0);
        scheduler.submit("blocker", kCpuSuited);
        REQUIRE(devices.wait_started(QueryDevice::kCpu, 1));
        scheduler.submit("a", kCpuSuited);               // 500 ms
        scheduler.submit("b", kCpuSuited);               // 500 ms
        scheduler.submit("hurry", kCpuSuited, 100ms);    // its own deadline
        clock.advance(60ms);                             // hurry has used 60%, a and b 12%
        devices.open(0);
        const auto outcomes = scheduler.finish();
        check_answers_in_order(outcomes);
        CHECK(devices.order() == std::vector<size_t>{0, 3, 1, 2});
        CHECK(outcomes[3].urgent);
        CHECK(!outcomes[1].urgent);
        CHECK(scheduler.counters().urgent == 1);
    }
    SUBCASE("on whichever worker is free, even against its affinity") {
        FixedRig rig;
        auto& [clock, devices, model] = rig;
        QueryScheduler scheduler(devices.processors(true), model, options(1, &clock));
        const OpenGatesOnExit release_scheduler{devices};
        devices.hold(0);
        scheduler.submit("blocker", kGpuSuited);
        REQUIRE(devices.wait_started(QueryDevice::kGpu, 1));
        scheduler.submit("waiting", kGpuSuited);  // 10 ms on the CPU: never worth stealing here
        clock.advance(300ms);
        scheduler.wake();
        REQUIRE(devices.wait_ran(1));
        devices.open(0);
        const auto outcomes = scheduler.finish();
        CHECK(*outcomes[1].device == QueryDevice::kCpu);
        CHECK(outcomes[1].urgent);
        CHECK(!outcomes[1].stolen);
    }
}

TEST_CASE("scheduler: a worker takes the cheapest query of its own queue first") {
    for (const bool shortest_first : {true, false}) {
        CAPTURE(shortest_first);
        FixedRig rig;
        auto& [clock, devices, model] = rig;
        SchedulerOptions scheduling = options(1, &clock);
        scheduling.shortest_first = shortest_first;
        QueryScheduler scheduler(devices.processors(false), model, scheduling);
        const OpenGatesOnExit release_scheduler{devices};
        devices.hold(0);
        scheduler.submit("blocker", kCpuSuited);
        REQUIRE(devices.wait_started(QueryDevice::kCpu, 1));
        scheduler.submit("expensive", features(50'000));
        scheduler.submit("cheap", features(100));
        scheduler.submit("cheap too", features(100));
        devices.open(0);
        scheduler.finish();
        CHECK(devices.order() == (shortest_first ? std::vector<size_t>{0, 2, 3, 1} : std::vector<size_t>{0, 1, 2, 3}));
    }
}

TEST_CASE("scheduler: no GPU processor, everything runs on the CPU workers") {
    FixedRig rig;
    auto& [clock, devices, model] = rig;
    QueryScheduler scheduler(devices.processors(false), model, options(4));
    const OpenGatesOnExit release_scheduler{devices};
    CHECK(!scheduler.has_gpu());
    for (size_t i = 0; i < 100; ++i) scheduler.submit("q", i % 2 ? kGpuSuited : kEven);
    const auto outcomes = scheduler.finish();
    check_answers_in_order(outcomes);
    for (const auto& outcome : outcomes) {
        CHECK(*outcome.device == QueryDevice::kCpu);
        CHECK(outcome.affinity == QueryAffinity::kCpuOnly);
    }
}

TEST_CASE("scheduler: queries submitted late keep their arrival times and deadlines") {
    FixedRig rig;  // still: the queries' own times decide, not when they were queued
    auto& [clock, devices, model] = rig;
    QueryScheduler scheduler(devices.processors(false), model, options(1, &clock));
    const OpenGatesOnExit release_scheduler{devices};
    const auto now = clock.function()();
    std::vector<QueryScheduler::Arrival> arrivals;
    for (int i = 0; i < 5; ++i) {
        arrivals.push_back({"q", kCpuSuited, now - std::chrono::milliseconds(400 - 10 * i)});
    }
    scheduler.submit_arrived(arrivals);
    scheduler.submit("later", kCpuSuited);
    const auto outcomes = scheduler.finish();
    check_answers_in_order(outcomes);
    REQUIRE(outcomes.size() == 6);
    for (int i = 0; i < 5; ++i) CHECK(outcomes[i].arrival == now - std::chrono::milliseconds(400 - 10 * i));
    CHECK(outcomes[5].arrival == now);
    // 360-400 ms old with a 500 ms deadline: past half their time, so urgent.
    for (int i = 0; i < 5; ++i) CHECK(outcomes[i].urgent);
    CHECK(!outcomes[5].urgent);
}

TEST_CASE("scheduler: no CPU workers, every query runs on the GPU in batches") {
    FixedRig rig;
    auto& [clock, devices, model] = rig;
    SchedulerOptions scheduling = options(0);
    scheduling.max_gpu_batch = 3;
    QueryScheduler scheduler(devices.processors(true), model, scheduling);
    for (size_t i = 0; i < 50; ++i) scheduler.submit("q", i % 2 ? kCpuSuited : kEven);
    const auto outcomes = scheduler.finish();
    check_answers_in_order(outcomes);
    for (const auto& outcome : outcomes) {
        CHECK(*outcome.device == QueryDevice::kGpu);
        CHECK(outcome.affinity == QueryAffinity::kGpu);
    }
    for (const size_t size : devices.batch_sizes()) CHECK(size <= 3);
}

TEST_CASE("scheduler: an exception is that query's outcome, also inside a GPU batch") {
    FixedRig rig;
    auto& [clock, devices, model] = rig;
    SchedulerOptions scheduling = options(2, &clock);
    scheduling.max_gpu_batch = 8;
    QueryScheduler scheduler(devices.processors(true), model, scheduling);
    const OpenGatesOnExit release_scheduler{devices};
    devices.fail(3);
    devices.fail(6);
    devices.hold(0);
    scheduler.submit("blocker", kGpuSuited);
    REQUIRE(devices.wait_started(QueryDevice::kGpu, 1));
    for (size_t i = 1; i <= 5; ++i) scheduler.submit("g", kGpuSuited);  // one batch of 5 after the blocker
    scheduler.submit("c", kCpuSuited);                                   // position 6, on the CPU
    devices.open(0);
    const auto outcomes = scheduler.finish();
    REQUIRE(outcomes.size() == 7);
    for (size_t i = 0; i < outcomes.size(); ++i) {
        CAPTURE(i);
        if (i == 3 || i == 6) {
            REQUIRE(outcomes[i].error);
            CHECK_THROWS_WITH(std::rethrow_exception(outcomes[i].error), ("query " + std::to_string(i) + " failed").c_str());
        } else {
            CHECK(!outcomes[i].error);
            REQUIRE(outcomes[i].result.hits.size() == 1);
            CHECK(outcomes[i].result.hits[0].docid == i);
        }
    }
    CHECK(*outcomes[3].device == QueryDevice::kGpu);
    // The batch of 5 failed as a whole, then each of its queries ran alone.
    CHECK(devices.batch_sizes() == std::vector<size_t>{1, 5, 1, 1, 1, 1, 1});
}

TEST_CASE("scheduler: stop with queries running does not hang, the queued ones never run") {
    FixedRig rig;
    auto& [clock, devices, model] = rig;
    std::vector<QueryOutcome> outcomes;
    {
        QueryScheduler scheduler(devices.processors(true), model, options(2));
        const OpenGatesOnExit release_scheduler{devices};
        for (size_t i = 0; i < 3; ++i) devices.hold(i);
        for (size_t i = 0; i < 20; ++i) scheduler.submit("q", kCpuSuited);
        REQUIRE(devices.wait_started(QueryDevice::kCpu, 2));  // 0 and 1 are running, held
        scheduler.stop();
        std::thread opener([&] {
            for (size_t i = 0; i < 3; ++i) devices.open(i);
        });
        outcomes = scheduler.finish();
        opener.join();
        CHECK_THROWS_AS(scheduler.submit("late", kCpuSuited), std::logic_error);
    }
    REQUIRE(outcomes.size() == 20);
    size_t ran = 0;
    for (const auto& outcome : outcomes) {
        if (outcome.device) {
            ++ran;
            CHECK(!outcome.error);
        } else {
            CHECK(outcome.error);
        }
    }
    CHECK(ran >= 2);
    CHECK(ran == devices.runs().size());

    // The destructor alone, with a query held: it waits for that one (opened
    // whenever the thread gets to it) and drops the queued one.
    FakeDevices more;
    std::thread opener;
    {
        QueryScheduler scheduler(more.processors(false), model, options(1));
        more.hold(0);
        scheduler.submit("q", kCpuSuited);
        scheduler.submit("q", kCpuSuited);
        REQUIRE(more.wait_started(QueryDevice::kCpu, 1));
        opener = std::thread([&] {
            std::this_thread::sleep_for(20ms);
            more.open(0);
        });
    }
    opener.join();
    CHECK(more.runs().size() == 1);
}

TEST_CASE("scheduler over a Searcher: the same results as search_all, with the GPU side faked by the CPU") {
    TempDir dir;
    std::mt19937 random(17);
    const auto words = random_words(random, 400);
    const auto index_dir = build_text_index(dir, skewed_documents(random, words, 600, 3.0));
    merge_runs(index_dir, MergeOptions{.query_codec = "bp128"});
    const IndexReader index(index_dir);
    const Searcher searcher(index);
    REQUIRE(searcher.query_postings() != nullptr);
    std::vector<std::string> queries;
    for (int q = 0; q < 120; ++q) queries.push_back(random_query(random, words));
    queries.push_back("unterminated \"quote");

    for (const QueryMode mode : {QueryMode::kAnd, QueryMode::kOr, QueryMode::kAndOr}) {
        CAPTURE(static_cast<int>(mode));
        const SearchOptions search{.k = 10, .mode = mode};
        std::vector<SearchResult> expected;
        for (size_t q = 0; q + 1 < queries.size(); ++q) expected.push_back(searcher.search(queries[q], search));

        // Every query through the scheduler, the "GPU" answering with the CPU path.
        QueryProcessors processors = searcher_processors(searcher, search, 2, false);
        const auto cpu = processors.cpu;
        processors.gpu = [cpu](std::span<const QueryJob* const> batch) {
            std::vector<SearchResult> results;
            for (const QueryJob* job : batch) results.push_back(cpu(*job, 1));  // the test's workers: 0 only
            return results;
        };
        QueryCostModel model;
        SchedulerOptions scheduling;
        scheduling.cpu_workers = 1;
        QueryScheduler scheduler(std::move(processors), model, scheduling);
        Analyzer analyzer(index.analysis());
        for (const auto& query : queries) scheduler.submit(query, query_features(searcher, query, search, analyzer));
        const auto outcomes = scheduler.finish();
        REQUIRE(outcomes.size() == queries.size());
        for (size_t q = 0; q + 1 < queries.size(); ++q) {
            CAPTURE(queries[q]);
            REQUIRE(!outcomes[q].error);
            CHECK(outcomes[q].result.hits == expected[q].hits);
        }
        // The bad quote is that query's QueryError, on the CPU.
        CHECK(outcomes.back().affinity == QueryAffinity::kCpuOnly);
        CHECK_THROWS_AS(std::rethrow_exception(outcomes.back().error), QueryError);

        // search_scheduled: CPU workers only (no GPU here), input order.
        queries.pop_back();
        const auto results = search_scheduled(searcher, queries, search, 3, false);
        queries.push_back("unterminated \"quote");
        REQUIRE(results.size() == expected.size());
        for (size_t q = 0; q < results.size(); ++q) CHECK(results[q].hits == expected[q].hits);
    }
}

TEST_CASE("invidx search --device auto prints exactly what --device cpu prints") {
    TempDir dir;
    std::mt19937 random(23);
    const auto words = random_words(random, 300);
    const auto index_dir = build_text_index(dir, skewed_documents(random, words, 400, 2.5));
    merge_runs(index_dir, MergeOptions{.query_codec = "bp128"});
    std::string topics;
    for (int q = 0; q < 60; ++q) topics += "t" + std::to_string(q) + "\t" + random_query(random, words) + "\n";
    const auto file = dir.write("topics.tsv", topics);
    const std::string index_arg = "'" + index_dir.string() + "'";
    const std::string queries_arg = " --queries '" + file.string() + "'";
    for (const std::string flags : {" --format trec --k 20", " --format json --mode and", " --mode and-or", ""}) {
        CAPTURE(flags);
        const auto cpu = run_invidx(dir, "search " + index_arg + queries_arg + flags + " --device cpu");
        const auto automatic = run_invidx(dir, "search " + index_arg + queries_arg + flags + " --device auto");
        REQUIRE(cpu.exit_code == 0);
        CHECK(automatic.exit_code == 0);
        CHECK(automatic.out == cpu.out);
        CHECK(!automatic.out.empty());
    }
    // One query on the command line; a bad quote in a file fails the same way.
    const std::string one = words[0] + " " + words[5];
    CHECK(run_invidx(dir, "search " + index_arg + " " + one + " --device auto").out ==
          run_invidx(dir, "search " + index_arg + " " + one + " --device cpu").out);
    const auto bad = dir.write("bad.tsv", "1\t" + words[0] + "\n2\tbad \"quote\n");
    const auto bad_auto = run_invidx(dir, "search " + index_arg + " --queries '" + bad.string() + "' --device auto");
    CHECK(bad_auto.exit_code == run_invidx(dir, "search " + index_arg + " --queries '" + bad.string() + "' --device cpu").exit_code);
    CHECK(bad_auto.exit_code == 4);  // the bad query named, the other answered
    CHECK(bad_auto.out == run_invidx(dir, "search " + index_arg + " --queries '" + bad.string() + "' --device cpu").out);
}

TEST_CASE("scheduler routing: grouped queries with required or prohibited clauses stay on the CPU") {
    TempDir dir;
    const auto index_dir = build_text_index(dir, {"zebra plum", "zebra pear", "plum fig", "kiwi"});
    const IndexReader index(index_dir);
    const Searcher searcher(index);
    Analyzer analyzer(index.analysis());
    const SearchOptions search{.k = 10};
    const auto cpu_only = [&](std::string_view query) { return query_features(searcher, query, search, analyzer).phrase; };
    // Boolean plans are the CPU's (QueryPlan::has_boolean_clauses), nested or not.
    for (const char* query : {"+(zebra plum) fig", "(zebra -pear)", "fig (kiwi (+zebra plum))", "fig NOT (zebra pear)"}) {
        CAPTURE(query);
        CHECK(cpu_only(query));
        CHECK(searcher.plan(query, search, analyzer).has_boolean_clauses());
    }
    CHECK(cpu_only("fig -\"zebra plum\""));  // a phrase
    CHECK(cpu_only("(fig zebra"));          // malformed: the CPU reports it
    // Groups of optional clauses only are a plain OR with weights: either device.
    CHECK(!cpu_only("(zebra (plum fig)^2)^1.5 kiwi"));
    CHECK(!searcher.plan("(zebra (plum fig)^2)^1.5 kiwi", search, analyzer).has_boolean_clauses());
    CHECK(preferred_device(QueryCostModel{}, query_features(searcher, "+(zebra plum) fig", search, analyzer), true) ==
          QueryDevice::kCpu);
}
