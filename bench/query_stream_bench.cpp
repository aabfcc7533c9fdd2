// invidx_query_stream_bench: a stream of queries arriving by a Poisson
// process (Ding et al. §9), through the CPU/GPU scheduler
// (query/query_scheduler.hpp) in three configurations:
//   cpu   N CPU workers, no GPU
//   gpu   the GPU worker alone
//   both  N CPU workers and the GPU worker, scheduled
// For each, arrival rates double from a start rate until a run fails (a
// query finishes more than the deadline, 500 ms, after it arrived; or halve
// until one holds), then two bisection steps between the highest rate held
// and the lowest failed. A run also fails when the workers do not keep up
// with the arrivals (done less than 90% as fast as they arrived): a burst
// drains within the deadline even where the queue would grow without bound.
// Each run submits --queries queries (drawn from a pool of distinct ones,
// with repeats as a query log has) at exponential inter-arrival times from a
// fixed seed, or as many as arrive within --max-seconds. Latency is arrival
// to finish (queueing included). Without a GPU only "cpu" runs.
//
// Before the runs, every pool query runs twice on each device: the first
// pass warms the page cache and the GPU's list cache (as query_bench's
// untimed pass does), the second one's times calibrate the cost model (the
// scheduler refines it online). The start rate is an eighth of the CPU
// workers' capacity by that warm-up.
//
//   invidx_query_stream_bench IDX [--queries N] [--pool N] [--query-file FILE] [--cpu-threads N] [--gpu-batch N]
//       [--mode and|or] [--k K] [--max-seconds S] [--deadline-ms D] [--seed S] [--configs cpu,gpu,both]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <optional>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "devices/gpu_devices.hpp"
#include "invidx/error.hpp"
#include "analysis/analyzer.hpp"
#include "query/query_cost_model.hpp"
#include "query/query_scheduler.hpp"
#include "query/searcher_processors.hpp"
#include "query/searcher.hpp"
#include "store/index_reader.hpp"
#include "tools/common/flags.hpp"

namespace {

using namespace invidx;
using Milliseconds = std::chrono::duration<double, std::milli>;

struct Settings {
    std::string directory;
    size_t queries = 20000;
    size_t pool = 500;
    std::string query_file;
    // One hardware thread is the arrival thread's; in "both" one more is the
    // GPU worker's (its batches' host work: analysis, staging).
    size_t cpu_threads = std::max(1u, std::thread::hardware_concurrency() - 1);
    std::optional<size_t> both_cpu_threads;  // default cpu_threads - 1
    QueryMode mode = QueryMode::kOr;
    size_t k = 10;
    double max_seconds = 4.0;
    double deadline_ms = 500.0;
    uint32_t seed = 1;
    std::vector<std::string> configs = {"cpu", "gpu", "both"};
    size_t gpu_batch = 32;  // most queries the GPU worker takes at once
};

// Terms a query reaches (they analyze to themselves), by document frequency:
// frequent (df >= N/10), medium (>= N/100), rare (>= 2).
std::vector<std::string> draw_queries(const IndexReader& index, size_t count, uint32_t seed) {
    std::vector<std::string> bands[3];
    Analyzer analyzer(index.analysis());
    for (uint64_t t = 0; t < index.term_count(); ++t) {
        const auto info = index.term(t);
        if (info.df < 2) continue;
        const std::string term(info.term);
        const auto analyzed = analyzer.analyze_query(term);
        if (analyzed.size() != 1 || analyzed[0] != term) continue;
        bands[info.df * 10 >= index.num_documents() ? 0 : info.df * 100 >= index.num_documents() ? 1 : 2].push_back(term);
    }
    std::mt19937 random(seed);
    std::vector<std::string> queries;
    while (queries.size() < count) {
        std::string text;
        for (size_t length = 1 + random() % 5, attempt = 0; length > 0 && attempt < 50; ++attempt) {
            const auto& band = bands[random() % 3];
            if (band.empty()) continue;
            const std::string& term = band[random() % band.size()];
            if ((" " + text + " ").find(" " + term + " ") != std::string::npos) continue;
            text += (text.empty() ? "" : " ") + term;
            --length;
        }
        if (!text.empty()) queries.push_back(text);
    }
    return queries;
}

std::vector<std::string> read_query_texts(const std::string& file) {
    std::ifstream in(file);
    if (!in) throw Error("cannot open " + file);
    std::vector<std::string> texts;
    for (std::string line; std::getline(in, line);) {
        const size_t tab = line.find('\t');
        if (tab != std::string::npos && tab + 1 < line.size()) texts.push_back(line.substr(tab + 1));
    }
    if (texts.empty()) throw Error(file + " holds no 'qid<TAB>text' line");
    return texts;
}

struct Pool {
    std::vector<std::string> texts;
    std::vector<QueryFeatures> features;
};

// Every pool query twice per device, the second time timed: the cost
// model's first samples.
// Returns the mean milliseconds per query on each device (GPU: 0 when none).
std::pair<double, double> warm_up(const Searcher& searcher, const Pool& pool, const SearchOptions& options, bool gpu,
                                  QueryCostModel& model) {
    Analyzer analyzer(searcher.index().analysis());
    double means[2] = {0.0, 0.0};
    for (const QueryDevice device : {QueryDevice::kCpu, QueryDevice::kGpu}) {
        if (device == QueryDevice::kGpu && !gpu) continue;
        SearchOptions on = options;
        on.device = device;
        // Untimed first: the page cache, the CUDA context, the GPU's list cache.
        for (const auto& text : pool.texts) searcher.search(text, on, analyzer);
        double total_ms = 0.0;
        for (size_t q = 0; q < pool.texts.size(); ++q) {
            const auto start = SchedulerClock::now();
            searcher.search(pool.texts[q], on, analyzer);
            const double elapsed_ms = Milliseconds(SchedulerClock::now() - start).count();
            total_ms += elapsed_ms;
            if (pool.features[q].runs_at_all) model.record(device, options.mode, QueryCostModel::work(device, pool.features[q]), elapsed_ms * 1e6);
        }
        means[device == QueryDevice::kGpu ? 1 : 0] = total_ms / static_cast<double>(pool.texts.size());
    }
    return {means[0], means[1]};
}

struct RateRun {
    std::string config;
    double rate = 0.0;          // asked for
    double arrived_rate = 0.0;  // as submitted (the submitting thread may lag at high rates)
    double throughput = 0.0;    // queries / (last finish - first arrival)
    size_t submitted = 0;
    double mean_ms = 0.0, p99_ms = 0.0, max_ms = 0.0;
    double gpu_share = 0.0;
    double queued_share[3] = {0.0, 0.0, 0.0};  // put in the GPU / CPU / undecided queue
    double stolen_share = 0.0;
    size_t missed = 0;  // over the deadline, or never run
    // Every query in time, and the workers kept up with the arrivals: a burst
    // of a few thousand queries can drain within the deadline even at a rate
    // whose queue would grow without bound.
    bool kept_up() const { return missed == 0 && submitted > 1 && throughput >= kKeptUp * arrived_rate; }
    bool held() const { return kept_up() && arrived_rate >= kKeptUp * rate; }
    // The workers kept up with what arrived, but the arrival thread could not
    // submit at the rate asked: the run says nothing about that rate.
    bool arrivals_lagged() const { return kept_up() && arrived_rate < kKeptUp * rate; }
    static constexpr double kKeptUp = 0.9;
};

constexpr auto kShortestSleep = std::chrono::microseconds(200);

RateRun run_rate(const Searcher& searcher, const Pool& pool, const SearchOptions& options, const Settings& settings,
                 const std::string& config, const QueryCostModel& calibrated, double rate) {
    const bool cpu = config != "gpu", gpu = config != "cpu";
    const size_t cpu_workers = !cpu ? 0 : gpu ? settings.both_cpu_threads.value_or(std::max<size_t>(settings.cpu_threads, 2) - 1)
                                              : settings.cpu_threads;
    QueryCostModel model;
    for (const QueryDevice device : {QueryDevice::kCpu, QueryDevice::kGpu}) model.set_line(device, options.mode, calibrated.line(device, options.mode));
    SchedulerOptions scheduling;
    scheduling.cpu_workers = cpu_workers;
    scheduling.max_gpu_batch = settings.gpu_batch;
    const auto deadline = std::chrono::duration_cast<SchedulerClock::duration>(Milliseconds(settings.deadline_ms));
    scheduling.deadline = deadline;
    QueryScheduler scheduler(searcher_processors(searcher, options, cpu_workers, gpu), model, scheduling);

    // The stream: exponential gaps, queries drawn from the pool, both from the seed.
    std::mt19937_64 random(settings.seed);
    std::exponential_distribution<double> gap_seconds(rate);
    const auto start = SchedulerClock::now();
    const auto last_arrival = start + std::chrono::duration_cast<SchedulerClock::duration>(std::chrono::duration<double>(settings.max_seconds));
    std::mutex mutex;
    std::condition_variable done_signal;
    bool done = false;
    // A run that cannot drain one deadline after its last arrival has failed:
    // stop it rather than wait for the backlog.
    std::thread watchdog([&] {
        std::unique_lock lock(mutex);
        if (!done_signal.wait_until(lock, last_arrival + deadline + deadline, [&] { return done; })) scheduler.stop();
    });
    size_t submitted = 0;
    double at_seconds = 0.0;
    // Queries whose time has come, queued together: a source that fell
    // behind (the cores are busy) catches up without one wake-up per query,
    // and each query keeps its own arrival time.
    std::vector<QueryScheduler::Arrival> due;
    bool stopped = false;
    const auto flush = [&] {
        if (due.empty() || stopped) return;
        try {
            scheduler.submit_arrived(due);
        } catch (const std::logic_error&) {
            stopped = true;  // by the watchdog
        }
        due.clear();
    };
    for (; submitted < settings.queries && !stopped; ++submitted) {
        at_seconds += gap_seconds(random);
        const auto arrival = start + std::chrono::duration_cast<SchedulerClock::duration>(std::chrono::duration<double>(at_seconds));
        if (arrival > last_arrival) break;
        const size_t q = random() % pool.texts.size();
        if (arrival > SchedulerClock::now()) {
            flush();
            // Sleeping wakes tens of microseconds late: spin through short gaps.
            if (arrival - SchedulerClock::now() > kShortestSleep) std::this_thread::sleep_until(arrival - kShortestSleep);
            while (SchedulerClock::now() < arrival) {
            }
        }
        due.push_back({pool.texts[q], pool.features[q], arrival});
        if (due.size() >= 64) flush();
    }
    flush();
    const auto outcomes = scheduler.finish();
    {
        std::lock_guard lock(mutex);
        done = true;
    }
    done_signal.notify_all();
    watchdog.join();

    RateRun run{.config = config, .rate = rate, .submitted = outcomes.size()};
    std::vector<double> latencies;
    size_t on_gpu = 0;
    if (outcomes.size() > 1) {
        auto last_finish = outcomes.front().finish;
        for (const auto& outcome : outcomes) last_finish = std::max(last_finish, outcome.device ? outcome.finish : outcome.arrival);
        const double arrivals_s = std::chrono::duration<double>(outcomes.back().arrival - outcomes.front().arrival).count();
        const double span_s = std::chrono::duration<double>(last_finish - outcomes.front().arrival).count();
        run.arrived_rate = arrivals_s > 0.0 ? static_cast<double>(outcomes.size() - 1) / arrivals_s : 0.0;
        run.throughput = span_s > 0.0 ? static_cast<double>(outcomes.size()) / span_s : 0.0;
    }
    for (const auto& outcome : outcomes) {
        if (outcome.error && outcome.device) std::rethrow_exception(outcome.error);  // a query failed, not the rate
        if (!outcome.device) {
            ++run.missed;
            continue;
        }
        const double ms = Milliseconds(outcome.finish - outcome.arrival).count();
        latencies.push_back(ms);
        run.missed += ms > settings.deadline_ms ? 1 : 0;
        on_gpu += *outcome.device == QueryDevice::kGpu ? 1 : 0;
        const QueryAffinity affinity = outcome.affinity == QueryAffinity::kCpuOnly ? QueryAffinity::kCpu : outcome.affinity;
        run.queued_share[affinity == QueryAffinity::kGpu ? 0 : affinity == QueryAffinity::kCpu ? 1 : 2] += 1.0;
        run.stolen_share += outcome.stolen ? 1.0 : 0.0;
    }
    if (!latencies.empty()) {
        std::sort(latencies.begin(), latencies.end());
        double sum = 0.0;
        for (const double ms : latencies) sum += ms;
        const auto n = static_cast<double>(latencies.size());
        run.mean_ms = sum / n;
        run.p99_ms = latencies[std::clamp<size_t>(static_cast<size_t>(std::ceil(0.99 * n)), 1, latencies.size()) - 1];
        run.max_ms = latencies.back();
        run.gpu_share = static_cast<double>(on_gpu) / n;
        for (double& share : run.queued_share) share /= n;
        run.stolen_share /= n;
    }
    return run;
}

tools::Flags bench_flags() {
    tools::Flags flags;
    flags.add({.name = "--queries", .value_name = "N", .help = "queries per run (default 20000)"});
    flags.add({.name = "--pool", .value_name = "N", .help = "distinct queries they are drawn from (default 500)"});
    flags.add({.name = "--query-file", .value_name = "FILE", .help = "the pool from FILE, 'qid<TAB>text' lines, instead"});
    flags.add({.name = "--cpu-threads", .value_name = "N", .help = "CPU workers of cpu (default the hardware threads - 1)"});
    flags.add({.name = "--both-cpu-threads", .value_name = "N", .help = "CPU workers of both (default --cpu-threads - 1)"});
    flags.add({.name = "--gpu-batch", .value_name = "N", .help = "most queries the GPU worker takes at once (default 32)"});
    flags.add({.name = "--mode", .value_name = "and|or", .help = "query mode (default or)"});
    flags.add({.name = "--k", .value_name = "K", .help = "results per query (default 10)"});
    flags.add({.name = "--max-seconds", .value_name = "S", .help = "most seconds of arrivals per run (default 4)"});
    flags.add({.name = "--deadline-ms", .value_name = "D", .help = "a query's deadline after its arrival (default 500)"});
    flags.add({.name = "--seed", .value_name = "S", .help = "seed of the pool and the arrivals (default 1)"});
    flags.add({.name = "--configs", .value_name = "LIST", .help = "of cpu, gpu, both (default all three)"});
    flags.add({.name = "--help", .help = "this help", .alias = "-h", .stops_parsing = true});
    return flags;
}

std::string bench_help(const tools::Flags& flags) {
    return flags.help({.usage = "usage: invidx_query_stream_bench IDX [--queries N] [--pool N] [--query-file FILE] [--cpu-threads N] [--gpu-batch N]\n"
                                "         [--mode and|or] [--k K] [--max-seconds S] [--deadline-ms D] [--seed S] [--configs cpu,gpu,both]",
                       .description = "Poisson query arrivals through the CPU/GPU scheduler: the highest rate each\n"
                                      "configuration holds within the deadline.",
                       .options_heading = "Options:\n",
                       .example = "  invidx_query_stream_bench /tmp/idx --queries 20000 --mode or --k 10\n",
                       .footer = "Exit codes: 0 done; 1 failed; 2 bad command line.\n"});
}

Settings parse(int argc, char** argv) {
    Settings settings;
    const tools::Flags flags = bench_flags();
    try {
        const tools::ParsedFlags given = flags.parse(std::vector<std::string>(argv + 1, argv + argc));
        if (given.has("--help")) {
            std::cout << bench_help(flags);
            std::exit(0);
        }
        const auto count = [](std::string_view flag, const std::string& text) { return tools::positive_integer(flag, text); };
        if (auto value = given.value("--queries")) settings.queries = count("--queries", *value);
        if (auto value = given.value("--pool")) settings.pool = count("--pool", *value);
        if (auto value = given.value("--query-file")) settings.query_file = *value;
        if (auto value = given.value("--gpu-batch")) settings.gpu_batch = count("--gpu-batch", *value);
        if (auto value = given.value("--cpu-threads")) settings.cpu_threads = count("--cpu-threads", *value);
        if (auto value = given.value("--both-cpu-threads")) settings.both_cpu_threads = count("--both-cpu-threads", *value);
        if (auto value = given.value("--mode")) {
            if (*value != "and" && *value != "or") throw tools::UsageError("--mode must be and or or");
            settings.mode = *value == "and" ? QueryMode::kAnd : QueryMode::kOr;
        }
        if (auto value = given.value("--k")) settings.k = count("--k", *value);
        if (auto value = given.value("--max-seconds")) settings.max_seconds = tools::positive_number("--max-seconds", *value);
        if (auto value = given.value("--deadline-ms")) settings.deadline_ms = tools::positive_number("--deadline-ms", *value);
        if (auto value = given.value("--seed")) settings.seed = static_cast<uint32_t>(tools::unsigned_integer("--seed", *value));
        if (auto value = given.value("--configs")) {
            settings.configs.clear();
            std::string list = *value + ",";
            for (size_t comma; (comma = list.find(',')) != std::string::npos; list.erase(0, comma + 1)) {
                const std::string config = list.substr(0, comma);
                if (config != "cpu" && config != "gpu" && config != "both") throw tools::UsageError("--configs takes cpu, gpu, both");
                settings.configs.push_back(config);
            }
        }
        if (given.arguments().size() > 1) throw tools::UsageError("unexpected argument " + given.arguments()[1]);
        if (given.arguments().empty()) throw tools::UsageError("no index");
        settings.directory = given.arguments()[0];
    } catch (const tools::UsageError& error) {
        tools::exit_with_usage_error("invidx_query_stream_bench", error.what());
    }
    return settings;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        Settings settings = parse(argc, argv);
        const IndexReader index(settings.directory);
        const GpuInventory gpus = list_gpus();
        const bool have_gpu = !gpus.devices.empty();
        const Searcher searcher(index, {}, have_gpu ? std::optional<GpuOptions>(GpuOptions{}) : std::nullopt);
        const SearchOptions options{.k = settings.k, .mode = settings.mode};

        if (!have_gpu) {
            std::erase_if(settings.configs, [](const std::string& config) { return config != "cpu"; });
            std::printf("no GPU (%s): config cpu only\n", gpus.note.empty() ? "none found" : gpus.note.c_str());
        }
        if (settings.configs.empty()) throw Error("no configuration left to run");

        Pool pool;
        pool.texts = settings.query_file.empty() ? draw_queries(index, std::min(settings.pool, settings.queries), settings.seed)
                                                 : read_query_texts(settings.query_file);
        Analyzer analyzer(index.analysis());
        for (const auto& text : pool.texts) pool.features.push_back(query_features(searcher, text, options, analyzer));

        QueryCostModel calibrated;
        const auto [cpu_ms, gpu_ms] = warm_up(searcher, pool, options, have_gpu, calibrated);
        const char* mode = settings.mode == QueryMode::kAnd ? "and" : "or";
        std::printf("index %s: %llu documents, %llu postings%s\n", settings.directory.c_str(),
                    static_cast<unsigned long long>(index.num_documents()), static_cast<unsigned long long>(index.num_postings()),
                    searcher.query_postings() ? ", query layout" : ", run files (no query layout)");
        std::printf("pool: %zu distinct queries%s; stream: %zu queries a rate (at most %.0f s of arrivals), seed %u; "
                    "mode %s, k %zu; deadline %g ms\n",
                    pool.texts.size(), settings.query_file.empty() ? " from the index vocabulary" : (" from " + settings.query_file).c_str(),
                    settings.queries, settings.max_seconds, settings.seed, mode, settings.k, settings.deadline_ms);
        std::printf("warm-up (one query at a time): CPU %.3f ms/query", cpu_ms);
        if (have_gpu) std::printf(", GPU %.3f ms/query (%s)", gpu_ms, gpus.devices.front().name.c_str());
        std::printf("; CPU workers %zu, %zu beside the GPU (machine: %u hardware threads)\n", settings.cpu_threads,
                    settings.both_cpu_threads.value_or(std::max<size_t>(settings.cpu_threads, 2) - 1), std::thread::hardware_concurrency());
        for (const QueryDevice device : {QueryDevice::kCpu, QueryDevice::kGpu}) {
            if (device == QueryDevice::kGpu && !have_gpu) continue;
            const CostLine line = calibrated.line(device, settings.mode);
            std::printf("cost model %s: %.1f us + %.3f ns per unit of work\n", std::string(device_name(device)).c_str(),
                        line.fixed_ns / 1000.0, line.per_work_ns);
        }
        std::fflush(stdout);

        // An eighth of the CPU workers' capacity by the warm-up, at least 1 q/s.
        const double start_rate = std::max(1.0, std::floor(static_cast<double>(settings.cpu_threads) / std::max(cpu_ms, 1e-3) * 1000.0 / 8.0));
        std::vector<RateRun> runs;
        struct Best {
            std::string config;
            double rate = 0.0;
            bool lagged = false;  // a higher rate failed only because arrivals lagged
        };
        std::vector<Best> best;
        for (const auto& config : settings.configs) {
            double held = 0.0, failed = 0.0;
            bool lagged = false;
            const auto measure = [&](double rate) {
                runs.push_back(run_rate(searcher, pool, options, settings, config, calibrated, rate));
                const RateRun& run = runs.back();
                std::fprintf(stderr, "%s %.0f q/s (arrived %.0f, done %.0f): %zu queries, mean %.2f ms, p99 %.2f ms, max %.2f ms, %zu late: %s\n",
                             config.c_str(), rate, run.arrived_rate, run.throughput, run.submitted, run.mean_ms, run.p99_ms,
                             run.max_ms, run.missed, run.held() ? "held" : "failed");
                (run.held() ? held : failed) = rate;
                lagged = lagged || run.arrivals_lagged();
            };
            // Doubling until a run fails (halving until one holds, if the first
            // fails: the GPU alone may not hold the CPU's start rate), at most
            // 16 times, then two bisection steps.
            measure(start_rate);
            for (double rate = start_rate * 2.0; held > 0.0 && failed == 0.0 && rate < start_rate * 65536.0; rate *= 2.0) measure(rate);
            for (double rate = start_rate / 2.0; held == 0.0 && rate >= std::max(1.0, start_rate / 65536.0); rate /= 2.0) measure(std::round(rate));
            for (int step = 0; step < 2 && failed > 0.0 && held > 0.0; ++step) measure(std::round((held + failed) / 2.0));
            best.push_back({config, held, lagged});
        }

        std::printf("\n| config | rate q/s | arrived q/s | done q/s | queries | mean ms | p99 ms | max ms | on GPU | queued G/C/U % | stolen | over %g ms | held |\n",
                    settings.deadline_ms);
        std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (const RateRun& run : runs) {
            std::printf("| %s | %.0f | %.0f | %.0f | %zu | %.2f | %.2f | %.2f | %.0f%% | %.0f/%.0f/%.0f | %.0f%% | %zu | %s |\n",
                        run.config.c_str(), run.rate, run.arrived_rate, run.throughput, run.submitted, run.mean_ms, run.p99_ms,
                        run.max_ms, 100.0 * run.gpu_share, 100.0 * run.queued_share[0], 100.0 * run.queued_share[1],
                        100.0 * run.queued_share[2], 100.0 * run.stolen_share, run.missed, run.held() ? "yes" : run.arrivals_lagged() ? "no (arrivals lagged)" : "no");
        }
        std::printf("\nheld: every query finished within %g ms of its arrival, and queries were done at least %.0f%% as fast "
                    "as they arrived (first arrival to last finish)\n",
                    settings.deadline_ms, 100.0 * RateRun::kKeptUp);
        std::printf("highest rate held with every query under %g ms:", settings.deadline_ms);
        for (const Best& b : best) std::printf(" %s %.0f q/s%s;", b.config.c_str(), b.rate, b.lagged ? " (or more: arrivals lagged above)" : "");
        std::printf("\n");
        return 0;
    } catch (const std::exception& error) {
        std::cerr << "invidx_query_stream_bench: " << error.what() << "\n";
        return 1;
    }
}
