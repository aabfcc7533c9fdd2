#include "query/query_scheduler.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "invidx/error.hpp"

namespace invidx {

namespace {

double nanoseconds(SchedulerClock::duration duration) {
    return std::chrono::duration<double, std::nano>(duration).count();
}

double cost_on(QueryDevice device, const QueryCost& cost) { return device == QueryDevice::kGpu ? cost.gpu_ns : cost.cpu_ns; }

// A worker with nothing it may take yet still looks again this often: a
// manual clock in tests may have moved without wake().
constexpr auto kLongestIdleWait = std::chrono::milliseconds(50);

// The deadline and cheapest-first rules look at this many of the oldest
// queries of each queue, not all: under overload the queues grow to tens of
// thousands, and a full scan per pick (under the lock) made the scheduler
// itself the bottleneck. With one deadline for all, the oldest are the most
// urgent anyway.
constexpr size_t kScanLimit = 64;

template <class Queue>
auto scan_end(Queue& queue) {
    return queue.begin() + static_cast<std::ptrdiff_t>(std::min(queue.size(), kScanLimit));
}

}  // namespace

std::string_view affinity_name(QueryAffinity affinity) {
    switch (affinity) {
        case QueryAffinity::kGpu: return "gpu";
        case QueryAffinity::kCpu: return "cpu";
        case QueryAffinity::kUndecided: return "undecided";
        case QueryAffinity::kCpuOnly: return "cpu-only";
    }
    return "?";
}

QueryScheduler::QueryScheduler(QueryProcessors processors, QueryCostModel& model, SchedulerOptions options)
    : processors_(std::move(processors)), model_(model), options_(std::move(options)) {
    // No CPU workers is allowed with a GPU (a GPU-only configuration).
    if (!has_gpu()) options_.cpu_workers = std::max<size_t>(options_.cpu_workers, 1);
    if (options_.cpu_workers > 0 && !processors_.cpu) throw std::invalid_argument("QueryScheduler needs a CPU processor");
    options_.max_gpu_batch = std::max<size_t>(options_.max_gpu_batch, 1);
    options_.urgent_fraction = std::clamp(options_.urgent_fraction, 0.0, 1.0);
    running_.resize(options_.cpu_workers + (has_gpu() ? 1 : 0));
    threads_.reserve(running_.size());
    for (size_t worker = 0; worker < options_.cpu_workers; ++worker) threads_.emplace_back([this, worker] { cpu_worker(worker); });
    if (has_gpu()) threads_.emplace_back([this] { gpu_worker(); });
}

QueryScheduler::~QueryScheduler() {
    stop();
    for (auto& thread : threads_) {
        if (thread.joinable()) thread.join();
    }
}

SchedulerClock::time_point QueryScheduler::now() const {
    return options_.clock ? options_.clock() : SchedulerClock::now();
}

QueryAffinity QueryScheduler::classify(const QueryJob& job) const {
    if (options_.cpu_workers == 0) return QueryAffinity::kGpu;  // phrases fail there, as with --device gpu
    if (!has_gpu() || job.features.phrase) return QueryAffinity::kCpuOnly;
    const double factor = 1.0 + options_.suited_margin;
    if (job.estimate.cpu_ns >= factor * job.estimate.gpu_ns) return QueryAffinity::kGpu;
    if (job.estimate.gpu_ns >= factor * job.estimate.cpu_ns) return QueryAffinity::kCpu;
    return QueryAffinity::kUndecided;
}

bool QueryScheduler::can_run(QueryDevice device, const QueryJob& job) const {
    return device == QueryDevice::kCpu || job.affinity != QueryAffinity::kCpuOnly;
}

size_t QueryScheduler::submit(std::string text, const QueryFeatures& features, std::optional<SchedulerClock::duration> deadline) {
    std::lock_guard lock(mutex_);
    if (closed_) throw std::logic_error("QueryScheduler::submit after finish() or stop()");
    const size_t position = enqueue(std::move(text), features, now(), deadline);
    work_.notify_all();
    return position;
}

void QueryScheduler::submit_arrived(std::span<Arrival> arrivals) {
    std::lock_guard lock(mutex_);
    if (closed_) throw std::logic_error("QueryScheduler::submit_arrived after finish() or stop()");
    for (Arrival& arrival : arrivals) enqueue(std::move(arrival.text), arrival.features, arrival.at, std::nullopt);
    work_.notify_all();
}

size_t QueryScheduler::enqueue(std::string text, const QueryFeatures& features, SchedulerClock::time_point arrival,
                               std::optional<SchedulerClock::duration> deadline) {
    QueryJob& job = jobs_.emplace_back();
    job.position = jobs_.size() - 1;
    job.text = std::move(text);
    job.features = features;
    job.arrival = arrival;
    if (!deadline) deadline = options_.deadline;
    if (deadline) {
        job.deadline = job.arrival + *deadline;
        job.urgent_from = job.arrival + std::chrono::duration_cast<SchedulerClock::duration>(*deadline * options_.urgent_fraction);
    }
    job.estimate = model_.estimate(features);
    job.affinity = classify(job);

    QueryOutcome& outcome = outcomes_.emplace_back();
    outcome.affinity = job.affinity;
    outcome.estimate = job.estimate;
    outcome.arrival = job.arrival;
    // What the query adds to its side's backlog. The GPU answers its queue in
    // batches: a query's fixed cost is shared by a full batch (otherwise CPU
    // workers would steal what the GPU clears in a fraction of the time, and
    // take host cores the GPU worker needs).
    const double batch_share = 1.0 - 1.0 / static_cast<double>(options_.max_gpu_batch);
    switch (job.affinity) {
        case QueryAffinity::kGpu:
            job.backlog_ns = std::max(0.0, job.estimate.gpu_ns - batch_share * model_.line(QueryDevice::kGpu, features.mode).fixed_ns);
            break;
        case QueryAffinity::kUndecided: break;
        default: job.backlog_ns = job.estimate.cpu_ns; break;
    }
    queue_of(job.affinity).push_back(&job);
    queued_ns_[job.affinity == QueryAffinity::kGpu ? 1 : 0] += job.backlog_ns;
    return job.position;
}

bool QueryScheduler::queues_empty() const { return gpu_queue_.empty() && cpu_queue_.empty() && undecided_.empty(); }

std::deque<QueryJob*>& QueryScheduler::queue_of(QueryAffinity affinity) {
    switch (affinity) {
        case QueryAffinity::kGpu: return gpu_queue_;
        case QueryAffinity::kUndecided: return undecided_;
        default: return cpu_queue_;
    }
}

QueryJob* QueryScheduler::take(std::deque<QueryJob*>& queue, std::deque<QueryJob*>::iterator it) {
    QueryJob* job = *it;
    queue.erase(it);
    if (&queue != &undecided_) queued_ns_[&queue == &gpu_queue_ ? 1 : 0] -= job->backlog_ns;
    return job;
}

std::optional<QueryScheduler::Pick> QueryScheduler::pick_urgent(QueryDevice device, SchedulerClock::time_point now) {
    std::deque<QueryJob*>* best_queue = nullptr;
    std::deque<QueryJob*>::iterator best;
    for (auto* queue : {&gpu_queue_, &cpu_queue_, &undecided_}) {
        for (auto it = queue->begin(); it != scan_end(*queue); ++it) {
            const QueryJob& job = **it;
            if (!job.urgent_from || *job.urgent_from > now || !can_run(device, job)) continue;
            // Nearest deadline first; among equal ones the earlier arrival.
            if (best_queue == nullptr || *job.deadline < *(*best)->deadline ||
                (*job.deadline == *(*best)->deadline && job.position < (*best)->position)) {
                best_queue = queue;
                best = it;
            }
        }
    }
    if (best_queue == nullptr) return std::nullopt;
    return Pick{take(*best_queue, best), false, true};
}

double QueryScheduler::backlog_ns(QueryDevice owner, SchedulerClock::time_point now) const {
    double total = queued_ns_[owner == QueryDevice::kGpu ? 1 : 0];  // kept as queries come and go
    for (const auto& running : running_) {
        // What is left of a running query's estimate (none once overdue).
        if (running && running->device == owner) total += std::max(0.0, running->estimate_ns - nanoseconds(now - running->start));
    }
    total = std::max(total, 0.0);  // rounding of the running sum
    const double workers = owner == QueryDevice::kGpu ? 1.0 : static_cast<double>(options_.cpu_workers);
    return workers > 0.0 ? total / workers : total;
}

QueryScheduler::Pick QueryScheduler::pick(QueryDevice device, SchedulerClock::time_point now) {
    if (auto urgent = pick_urgent(device, now)) return *urgent;
    const auto take_front = [this](std::deque<QueryJob*>& queue) { return take(queue, queue.begin()); };
    auto& own = device == QueryDevice::kGpu ? gpu_queue_ : cpu_queue_;
    if (!own.empty()) {
        // CPU-only queries sit in the CPU queue; the GPU queue holds none.
        if (!options_.shortest_first) return {take_front(own), false, false};
        // The cheapest first (the oldest among equals) lowers the mean delay;
        // the deadline rule keeps an expensive query from starving.
        auto cheapest = own.begin();
        for (auto it = own.begin(); it != scan_end(own); ++it) {
            if (cost_on(device, (*it)->estimate) < cost_on(device, (*cheapest)->estimate)) cheapest = it;
        }
        return {take(own, cheapest), false, false};
    }
    if (!undecided_.empty()) return {take_front(undecided_), false, false};
    if (!options_.steal || (device == QueryDevice::kGpu ? cpu_queue_.empty() : gpu_queue_.empty())) return {};
    const QueryDevice owner = device == QueryDevice::kGpu ? QueryDevice::kCpu : QueryDevice::kGpu;
    auto& other = owner == QueryDevice::kGpu ? gpu_queue_ : cpu_queue_;
    const double backlog = backlog_ns(owner, now);
    for (auto it = other.begin(); it != scan_end(other); ++it) {
        // Oldest first: it would wait there at least the owner's backlog.
        if (!can_run(device, **it) || cost_on(device, (*it)->estimate) > backlog) continue;
        return {take(other, it), true, false};
    }
    return {};
}

std::optional<SchedulerClock::time_point> QueryScheduler::next_urgent(QueryDevice device) const {
    std::optional<SchedulerClock::time_point> earliest;
    for (const auto* queue : {&gpu_queue_, &cpu_queue_, &undecided_}) {
        for (auto it = queue->begin(); it != scan_end(*queue); ++it) {
            const QueryJob* job = *it;
            if (job->urgent_from && can_run(device, *job) && (!earliest || *job->urgent_from < *earliest)) earliest = job->urgent_from;
        }
    }
    return earliest;
}

void QueryScheduler::wait_for_work(std::unique_lock<std::mutex>& lock, QueryDevice device) {
    if (const auto when = next_urgent(device)) {
        const auto wait = std::clamp<SchedulerClock::duration>(*when - now(), SchedulerClock::duration::zero(), kLongestIdleWait);
        work_.wait_for(lock, wait);
    } else if (queues_empty()) {
        work_.wait(lock);
    } else {
        // Queries this worker may steal once the other side's backlog grows.
        work_.wait_for(lock, kLongestIdleWait);
    }
}

void QueryScheduler::complete(QueryJob& job, QueryOutcome&& outcome) {
    outcome.affinity = job.affinity;
    outcome.estimate = job.estimate;
    outcome.arrival = job.arrival;
    outcomes_[job.position] = std::move(outcome);
    ++completed_;
    finished_.notify_all();
}

void QueryScheduler::cpu_worker(size_t worker) {
    bool warm = false;  // the first query pays for cold caches: not a sample
    std::unique_lock lock(mutex_);
    while (true) {
        const Pick pick = this->pick(QueryDevice::kCpu, now());
        if (pick.job == nullptr) {
            if (closed_ && queues_empty()) return;
            wait_for_work(lock, QueryDevice::kCpu);
            continue;
        }
        if (closed_ && queues_empty()) work_.notify_all();  // the others may leave
        QueryJob& job = *pick.job;
        QueryOutcome outcome;
        outcome.device = QueryDevice::kCpu;
        outcome.stolen = pick.stolen;
        outcome.urgent = pick.urgent;
        outcome.worker = worker;
        outcome.start = now();
        running_[worker] = Running{QueryDevice::kCpu, job.estimate.cpu_ns, outcome.start};
        ++counters_.cpu_queries;
        counters_.stolen += pick.stolen ? 1 : 0;
        counters_.urgent += pick.urgent ? 1 : 0;
        lock.unlock();

        try {
            outcome.result = processors_.cpu(job, worker);
        } catch (...) {
            outcome.error = std::current_exception();
        }
        outcome.finish = now();
        if (!outcome.error && job.features.runs_at_all) {
            if (warm) {
                model_.record(QueryDevice::kCpu, job.features.mode, QueryCostModel::work(QueryDevice::kCpu, job.features),
                              nanoseconds(outcome.finish - outcome.start));
            }
            warm = true;
        }

        lock.lock();
        running_[worker].reset();
        complete(job, std::move(outcome));
    }
}

void QueryScheduler::run_gpu_batch(std::vector<QueryJob*>& batch, std::vector<QueryOutcome>& results) {
    const auto run = [this](std::span<QueryJob* const> jobs, std::span<QueryOutcome> out) {
        std::vector<const QueryJob*> view(jobs.begin(), jobs.end());
        try {
            auto answers = processors_.gpu(view);
            if (answers.size() != jobs.size()) {
                throw Error("the GPU processor returned " + std::to_string(answers.size()) + " results for " +
                                         std::to_string(jobs.size()) + " queries");
            }
            for (size_t i = 0; i < jobs.size(); ++i) out[i].result = std::move(answers[i]);
            return true;
        } catch (...) {
            for (auto& outcome : out) outcome.error = std::current_exception();
            return false;
        }
    };
    if (!run(batch, results) && batch.size() > 1) {
        // Find the culprit: each query alone, so one bad query fails only itself.
        for (size_t i = 0; i < batch.size(); ++i) {
            results[i].error = nullptr;
            run(std::span(batch).subspan(i, 1), std::span(results).subspan(i, 1));
        }
    }
}

void QueryScheduler::gpu_worker() {
    const size_t slot = options_.cpu_workers;
    bool warm = false;  // the first batch creates the CUDA context: not a sample
    std::unique_lock lock(mutex_);
    while (true) {
        std::vector<Pick> picks;
        for (auto time = now(); picks.size() < options_.max_gpu_batch;) {
            const Pick pick = this->pick(QueryDevice::kGpu, time);
            if (pick.job == nullptr) break;
            picks.push_back(pick);
        }
        if (picks.empty()) {
            if (closed_ && queues_empty()) return;
            wait_for_work(lock, QueryDevice::kGpu);
            continue;
        }
        if (closed_ && queues_empty()) work_.notify_all();
        std::vector<QueryJob*> batch;
        double estimate_ns = 0.0;
        for (const Pick& pick : picks) {
            batch.push_back(pick.job);
            estimate_ns += pick.job->estimate.gpu_ns;
            counters_.stolen += pick.stolen ? 1 : 0;
            counters_.urgent += pick.urgent ? 1 : 0;
        }
        const auto start = now();
        running_[slot] = Running{QueryDevice::kGpu, estimate_ns, start};
        counters_.gpu_queries += batch.size();
        ++counters_.gpu_batches;
        lock.unlock();

        std::vector<QueryOutcome> results(batch.size());
        run_gpu_batch(batch, results);
        const auto finish = now();
        // One sample: the batch's mean working query (those answered without
        // evaluation cost next to nothing).
        size_t working = 0;
        double work = 0.0;
        bool failed = false;  // or mixed modes: no one line to train
        for (size_t i = 0; i < batch.size(); ++i) {
            failed = failed || results[i].error != nullptr || batch[i]->features.mode != batch.front()->features.mode;
            if (batch[i]->features.runs_at_all) {
                ++working;
                work += QueryCostModel::work(QueryDevice::kGpu, batch[i]->features);
            }
        }
        if (!failed && working > 0) {
            if (warm) {
                model_.record(QueryDevice::kGpu, batch.front()->features.mode, work / static_cast<double>(working),
                              nanoseconds(finish - start), working);
            }
            warm = true;
        }

        lock.lock();
        running_[slot].reset();
        for (size_t i = 0; i < batch.size(); ++i) {
            results[i].device = QueryDevice::kGpu;
            results[i].stolen = picks[i].stolen;
            results[i].urgent = picks[i].urgent;
            results[i].start = start;
            results[i].finish = finish;
            complete(*batch[i], std::move(results[i]));
        }
    }
}

std::vector<QueryOutcome> QueryScheduler::finish() {
    {
        std::unique_lock lock(mutex_);
        closed_ = true;
        work_.notify_all();
        finished_.wait(lock, [this] { return completed_ == jobs_.size(); });
    }
    for (auto& thread : threads_) {
        if (thread.joinable()) thread.join();
    }
    std::lock_guard lock(mutex_);
    return std::move(outcomes_);
}

void QueryScheduler::stop() {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
    closed_ = true;
    for (auto* queue : {&gpu_queue_, &cpu_queue_, &undecided_}) {
        for (QueryJob* job : *queue) {
            QueryOutcome outcome;
            outcome.error = std::make_exception_ptr(Error("the query scheduler stopped before the query ran"));
            complete(*job, std::move(outcome));
        }
        queue->clear();
    }
    queued_ns_[0] = queued_ns_[1] = 0.0;
    work_.notify_all();
}

void QueryScheduler::wake() {
    std::lock_guard lock(mutex_);
    work_.notify_all();
}

SchedulerCounters QueryScheduler::counters() const {
    std::lock_guard lock(mutex_);
    return counters_;
}

QueryDevice preferred_device(const QueryCostModel& model, const QueryFeatures& features, bool gpu_available) {
    if (!gpu_available || features.phrase) return QueryDevice::kCpu;
    const QueryCost cost = model.estimate(features);
    return cost.gpu_ns < cost.cpu_ns ? QueryDevice::kGpu : QueryDevice::kCpu;
}

}  // namespace invidx
