// A stream of queries over CPU workers and one GPU worker (Ding et al. §9,
// docs/QUERY.md "Scheduling (--device auto)").
//
// Each submitted query gets a CPU and a GPU cost estimate (QueryCostModel)
// and goes to one of three FIFO queues: GPU-suited (the CPU estimate is at
// least 1 + suited_margin times the GPU's), CPU-suited (the reverse, and
// every query the GPU cannot run: phrases, or no GPU at all), and undecided.
// An idle worker takes, in order:
//   1. the query whose deadline is nearest among those that have used
//      urgent_fraction of their time (deadline priority, on whichever worker
//      is free; the GPU never takes a CPU-only query);
//   2. the cheapest query of its own queue (by its estimate there; the
//      oldest among equals; oldest first with shortest_first off);
//   3. the oldest undecided query;
//   4. the oldest query of the other side's queue it can run, if that side's
//      backlog (its queued estimates per worker, plus what is left of its
//      running queries' estimates) is at least this query's estimate here:
//      the query would wait there longer than it takes here (work stealing).
// Rules 1, 2 and 4 look at the 64 oldest queries of each queue only, so a
// pick costs the same with ten thousand queued (overload) as with ten.
// The GPU worker fills a batch of up to max_gpu_batch queries by the same
// rules, then hands the whole batch to the GPU processor (one device queue).
// Measured times train the cost model as queries finish.
//
// Processors are plain functions, so tests drive the scheduler with fakes;
// searcher_processors() (query/searcher_processors.hpp) makes the real ones
// over a Searcher.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "query/query_cost_model.hpp"
#include "query/query_device.hpp"
#include "query/search_result.hpp"

namespace invidx {

using SchedulerClock = std::chrono::steady_clock;

// Which queue a query was put in.
enum class QueryAffinity { kGpu, kCpu, kUndecided, kCpuOnly };

std::string_view affinity_name(QueryAffinity affinity);

struct QueryJob {
    size_t position = 0;  // in submission order
    std::string text;
    QueryFeatures features;
    QueryCost estimate;
    QueryAffinity affinity = QueryAffinity::kCpuOnly;
    SchedulerClock::time_point arrival;
    std::optional<SchedulerClock::time_point> deadline;
    std::optional<SchedulerClock::time_point> urgent_from;  // arrival + urgent_fraction of its time
    double backlog_ns = 0.0;  // what it adds to its queue's side while queued
};

struct QueryOutcome {
    SearchResult result;
    // What the processor threw for this query, or a runtime_error when the
    // scheduler stopped before the query ran.
    std::exception_ptr error;
    std::optional<QueryDevice> device;  // none: it never ran
    QueryAffinity affinity = QueryAffinity::kCpuOnly;
    QueryCost estimate;
    SchedulerClock::time_point arrival, start, finish;
    bool stolen = false;  // taken from the other side's queue
    bool urgent = false;  // taken first because it neared its deadline
    size_t worker = 0;    // CPU worker index (0 for the GPU)
};

struct QueryProcessors {
    // Runs one query on the CPU; `worker` is in [0, cpu_workers) (one
    // Analyzer per worker, say). Required unless cpu_workers is 0.
    std::function<SearchResult(const QueryJob& job, size_t worker)> cpu;
    // Runs a batch on the GPU, one result per job in order; empty: no GPU.
    // If it throws for a batch of several, each query is retried alone so
    // the error lands on the query that caused it.
    std::function<std::vector<SearchResult>(std::span<const QueryJob* const> batch)> gpu;
};

struct SchedulerOptions {
    // 0 with a GPU processor: GPU only (every query goes to the GPU queue).
    size_t cpu_workers = 1;
    // A query is suited to a device when the other's estimate is at least
    // (1 + suited_margin) times this one's (0.2: 20% faster).
    double suited_margin = 0.2;
    // Time from arrival to deadline for queries submitted without their own;
    // none: no deadlines (a batch of queries that all arrive at once).
    std::optional<SchedulerClock::duration> deadline = std::chrono::milliseconds(500);
    // The share of its time after which a waiting query goes first.
    double urgent_fraction = 0.5;
    size_t max_gpu_batch = 8;
    // Own queue cheapest first (Ding et al.: small jobs first lower the mean
    // delay); false: oldest first.
    bool shortest_first = true;
    bool steal = true;
    // The time source (tests: a manual clock, then wake()); default steady_clock.
    std::function<SchedulerClock::time_point()> clock;
};

struct SchedulerCounters {
    size_t cpu_queries = 0;
    size_t gpu_queries = 0;
    size_t gpu_batches = 0;
    size_t stolen = 0;
    size_t urgent = 0;
};

class QueryScheduler {
public:
    // Starts the workers. `model` must outlive the scheduler; it is read for
    // every submitted query and trained by every finished one.
    QueryScheduler(QueryProcessors processors, QueryCostModel& model, SchedulerOptions options);
    ~QueryScheduler();  // stop(), then joins the workers
    QueryScheduler(const QueryScheduler&) = delete;
    QueryScheduler& operator=(const QueryScheduler&) = delete;

    bool has_gpu() const { return static_cast<bool>(processors_.gpu); }

    // Queues a query arriving now; returns its position. `deadline`: time
    // from now, instead of SchedulerOptions::deadline.
    size_t submit(std::string text, const QueryFeatures& features,
                  std::optional<SchedulerClock::duration> deadline = std::nullopt);

    // Queries that arrived at the given times (not later than now), in
    // arrival order, queued under one lock with one wake-up: a stream's
    // source that fell behind catches up without waking every worker per
    // query. Deadlines count from each query's own arrival.
    struct Arrival {
        std::string text;
        QueryFeatures features;
        SchedulerClock::time_point at;
    };
    void submit_arrived(std::span<Arrival> arrivals);

    // Waits until every submitted query has run (or was stopped), joins the
    // workers and returns the outcomes in submission order. Errors are not
    // rethrown: each is in its query's outcome. Call once; no submit after.
    std::vector<QueryOutcome> finish();

    // Queries not yet started never run (their outcome holds an error);
    // running ones complete. finish() still returns every outcome.
    void stop();

    // Re-examines the queues now (after a manual clock moved).
    void wake();

    SchedulerCounters counters() const;

private:
    struct Pick {
        QueryJob* job = nullptr;
        bool stolen = false;
        bool urgent = false;
    };
    struct Running {
        QueryDevice device;
        double estimate_ns;
        SchedulerClock::time_point start;
    };

    SchedulerClock::time_point now() const;
    size_t enqueue(std::string text, const QueryFeatures& features, SchedulerClock::time_point arrival,
                   std::optional<SchedulerClock::duration> deadline);  // locked
    QueryAffinity classify(const QueryJob& job) const;
    bool can_run(QueryDevice device, const QueryJob& job) const;
    // The next query for an idle worker of `device` (the rules at the top); locked.
    Pick pick(QueryDevice device, SchedulerClock::time_point now);
    std::optional<Pick> pick_urgent(QueryDevice device, SchedulerClock::time_point now);
    double backlog_ns(QueryDevice owner, SchedulerClock::time_point now) const;
    // When a query this device may not take yet turns urgent; locked.
    std::optional<SchedulerClock::time_point> next_urgent(QueryDevice device) const;
    bool queues_empty() const;
    std::deque<QueryJob*>& queue_of(QueryAffinity affinity);
    // Removes a queued query, keeping queued_ns_; locked.
    QueryJob* take(std::deque<QueryJob*>& queue, std::deque<QueryJob*>::iterator it);
    void wait_for_work(std::unique_lock<std::mutex>& lock, QueryDevice device);

    void cpu_worker(size_t worker);
    void gpu_worker();
    void run_gpu_batch(std::vector<QueryJob*>& batch, std::vector<QueryOutcome>& results);
    void complete(QueryJob& job, QueryOutcome&& outcome);  // locked

    QueryProcessors processors_;
    QueryCostModel& model_;
    SchedulerOptions options_;

    mutable std::mutex mutex_;
    std::condition_variable work_;      // a query was queued, or the state changed
    std::condition_variable finished_;  // a query completed
    std::deque<QueryJob> jobs_;         // every submitted query; stable addresses
    std::vector<QueryOutcome> outcomes_;
    std::deque<QueryJob*> gpu_queue_, cpu_queue_, undecided_;
    double queued_ns_[2] = {0.0, 0.0};  // CPU queue, GPU queue: the sum of their queries' backlog_ns
    std::vector<std::optional<Running>> running_;  // per worker: CPU workers, then the GPU
    size_t completed_ = 0;
    bool closed_ = false;   // no more submissions: workers leave when the queues are empty
    bool stopped_ = false;
    SchedulerCounters counters_;
    std::vector<std::thread> threads_;
};

// The device a lone query runs on: the cheaper estimate, CPU when the GPU
// cannot run it or there is none.
QueryDevice preferred_device(const QueryCostModel& model, const QueryFeatures& features, bool gpu_available);

}  // namespace invidx
