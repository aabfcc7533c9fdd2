// invidx_query_bench: query latency on one thread, the two paths
// of `invidx search` on one index side by side:
//   run files     each query term's list decoded whole from the (merged) run
//                 file; AND by daat_and, OR by MaxScore
//   query layout  query.post through BlockCursors: AND with block skipping,
//                 OR with block-max MaxScore (docs/QUERY.md); for OR, a third
//                 row with Block-Max WAND ("query layout, BMW")
//   impacts       when `invidx weight` stored impacts: the query layout
//                 scored by --scoring impact (integer impacts and block
//                 maxima; AND by daat_and, OR by accumulator windows or
//                 integer block-max MaxScore as Searcher chooses), with
//                 the share of BM25's top k it returns (its ranking differs)
// The index must have query.post (invidx merge IDX --layout query).
//
// Queries are drawn from the index's own vocabulary (terms that analyze to
// themselves), 1 to 5 distinct terms each, every term from one of three
// document-frequency bands chosen at random: frequent (df >= N/10), medium
// (N/100 <= df < N/10), rare (2 <= df < N/100). Each query runs once untimed
// per path, then --repeat times; a query's latency is the median of its
// repetitions (analysis, list lookup, evaluation); the table gives the mean
// and the 99th percentile over the queries. Every path must return the same
// hits, or the program fails.
//
// With --gpu, a GPU row per mode and k (one query at a time, lists cached on
// the device; and with impacts a GPU impact row, which must equal the CPU's
// impact row), then a throughput table (and one for impact scoring, in
// batches of the largest B): the whole query set through
// Searcher::search_gpu_batch in batches of B queries (--batch, default 1, 8,
// 32 and 128), against the CPU's queries per second on one thread.
//
//   invidx_query_bench IDX [--queries N] [--seed S] [--repeat R] [--k K]... [--write-queries FILE] [--gpu [--batch B]...]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <oneapi/tbb/global_control.h>

#include "invidx/error.hpp"
#include "analysis/analyzer.hpp"
#include "query/searcher.hpp"
#include "store/index_reader.hpp"
#include "store/query_postings.hpp"
#include "tools/common/flags.hpp"

namespace {

using namespace invidx;

struct Bands {
    std::vector<std::string> frequent, medium, rare;
};

Bands vocabulary_bands(const IndexReader& index) {
    Bands bands;
    Analyzer analyzer(index.analysis());
    const uint64_t documents = index.num_documents();
    for (uint64_t t = 0; t < index.term_count(); ++t) {
        const auto info = index.term(t);
        if (info.df < 2) continue;
        const std::string term(info.term);
        // A stem may stem again ("gener" is not "generate"'s only form): keep the terms a query reaches.
        const auto analyzed = analyzer.analyze_query(term);
        if (analyzed.size() != 1 || analyzed[0] != term) continue;
        if (info.df * 10 >= documents) {
            bands.frequent.push_back(term);
        } else if (info.df * 100 >= documents) {
            bands.medium.push_back(term);
        } else {
            bands.rare.push_back(term);
        }
    }
    return bands;
}

std::vector<std::string> make_queries(const Bands& bands, size_t count, uint32_t seed) {
    std::mt19937 random(seed);
    const std::vector<const std::vector<std::string>*> pools = {&bands.frequent, &bands.medium, &bands.rare};
    std::vector<std::string> queries;
    while (queries.size() < count) {
        const size_t length = 1 + random() % 5;
        std::vector<std::string> terms;
        for (int attempt = 0; terms.size() < length && attempt < 50; ++attempt) {
            const auto& pool = *pools[random() % pools.size()];
            if (pool.empty()) continue;
            const std::string& term = pool[random() % pool.size()];
            if (std::find(terms.begin(), terms.end(), term) == terms.end()) terms.push_back(term);
        }
        std::string text;
        for (const auto& term : terms) text += (text.empty() ? "" : " ") + term;
        queries.push_back(text);
    }
    return queries;
}

struct Row {
    std::string mode;
    size_t k = 0;
    std::string path;
    double mean_ms = 0.0;
    double p99_ms = 0.0;
    double results = 0.0;         // per query
    double scored = 0.0;          // documents fully scored per query
    double blocks_decoded = -1.0;  // share of the lists' blocks whose docids were decoded (query layout)
    double bm25_overlap = -1.0;    // impact scoring: mean share of BM25's top k among its hits
};

// Mean over queries of |got ∩ expected| / |expected| (queries with hits only).
double mean_overlap(const std::vector<std::vector<ScoredDocument>>& got, const std::vector<std::vector<ScoredDocument>>& expected) {
    double sum = 0.0;
    size_t counted = 0;
    for (size_t q = 0; q < expected.size(); ++q) {
        if (expected[q].empty()) continue;
        size_t common = 0;
        for (const auto& hit : got[q]) {
            common += std::any_of(expected[q].begin(), expected[q].end(), [&](const ScoredDocument& e) { return e.docid == hit.docid; });
        }
        sum += static_cast<double>(common) / static_cast<double>(expected[q].size());
        ++counted;
    }
    return counted ? sum / static_cast<double>(counted) : 1.0;
}

// The table's name for what the options measure.
std::string path_label(const SearchOptions& options) {
    if (options.device == QueryDevice::kGpu) {
        return options.scoring == QueryScoring::kImpact ? "GPU, one query at a time, impact" : "GPU, one query at a time";
    }
    if (options.scoring == QueryScoring::kImpact) return "query layout, impact";
    switch (options.algorithm) {
        case Algorithm::kMaxscore: return "run files";
        case Algorithm::kBlockMaxWand: return "query layout, BMW";
        case Algorithm::kBlockMaxMaxscore: return "query layout";
        case Algorithm::kExhaustive: break;
    }
    return std::string(algorithm_name(options.algorithm));
}

Row measure(const Searcher& searcher, const std::vector<std::string>& queries, const SearchOptions& options,
            unsigned repeat, std::vector<std::vector<ScoredDocument>>& hits) {
    Analyzer analyzer(searcher.index().analysis());
    QueryStats stats;
    size_t results = 0;
    hits.assign(queries.size(), {});
    for (size_t q = 0; q < queries.size(); ++q) {  // untimed: warms the page cache and the allocator
        auto result = searcher.search(queries[q], options, analyzer);
        stats += result.stats;
        results += result.hits.size();
        hits[q] = std::move(result.hits);
    }
    std::vector<double> latencies_ms(queries.size());
    std::vector<std::vector<double>> runs(queries.size());
    for (unsigned r = 0; r < repeat; ++r) {
        for (size_t q = 0; q < queries.size(); ++q) {
            const auto start = std::chrono::steady_clock::now();
            const auto result = searcher.search(queries[q], options, analyzer);
            const auto stop = std::chrono::steady_clock::now();
            if (result.hits.size() != hits[q].size()) throw Error("a query's results changed between repetitions");
            runs[q].push_back(std::chrono::duration<double, std::milli>(stop - start).count());
        }
    }
    for (size_t q = 0; q < queries.size(); ++q) {
        auto& times = runs[q];
        std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(times.size() / 2), times.end());
        latencies_ms[q] = times[times.size() / 2];
    }
    Row row;
    row.mode = options.mode == QueryMode::kAnd ? "AND" : "OR";
    row.k = options.k;
    row.path = path_label(options);
    double sum = 0.0;
    for (const double ms : latencies_ms) sum += ms;
    const auto n = static_cast<double>(queries.size());
    row.mean_ms = sum / n;
    std::sort(latencies_ms.begin(), latencies_ms.end());
    // p99: the smallest latency at least 99% of the queries do not exceed.
    const size_t rank = static_cast<size_t>(std::ceil(0.99 * n));
    row.p99_ms = latencies_ms[std::clamp<size_t>(rank, 1, latencies_ms.size()) - 1];
    row.results = static_cast<double>(results) / n;
    row.scored = static_cast<double>(stats.documents_scored) / n;
    if (searcher.query_layout(options) && stats.blocks > 0) {
        row.blocks_decoded = static_cast<double>(stats.docid_blocks_decoded) / static_cast<double>(stats.blocks);
    }
    return row;
}

struct ThroughputRow {
    std::string mode;
    size_t k = 0;
    size_t batch = 0;  // queries per search_gpu_batch call
    double queries_per_second = 0.0;
    double batch_ms = 0.0;  // mean time of one call
};

// The CPU's throughput on every core, per (mode, k) in the tables' order:
// the whole query set through Searcher::search_all (oneTBB) on the query
// layout, once untimed, then the median of `repeat` passes.
std::vector<double> all_threads_qps(const Searcher& searcher, const std::vector<std::string>& queries,
                                    const std::vector<size_t>& depths, QueryScoring scoring, unsigned repeat) {
    std::vector<double> qps;
    for (const QueryMode mode : {QueryMode::kAnd, QueryMode::kOr}) {
        for (const size_t k : depths) {
            const SearchOptions options{.k = k, .mode = mode, .scoring = scoring};
            (void)searcher.search_all(queries, options);
            std::vector<double> seconds;
            for (unsigned r = 0; r < repeat; ++r) {
                const auto start = std::chrono::steady_clock::now();
                (void)searcher.search_all(queries, options);
                seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            }
            std::sort(seconds.begin(), seconds.end());
            qps.push_back(static_cast<double>(queries.size()) / seconds[seconds.size() / 2]);
        }
    }
    return qps;
}

// The whole query set through Searcher::search_gpu_batch in batches of
// `batch` queries (analysis included), once untimed and checked against
// `expected`, then `repeat` times; the median pass gives the throughput.
ThroughputRow measure_batches(const Searcher& searcher, const std::vector<std::string>& queries,
                              const SearchOptions& options, size_t batch, unsigned repeat,
                              const std::vector<std::vector<ScoredDocument>>& expected) {
    const auto pass = [&](bool check) {
        for (size_t first = 0; first < queries.size(); first += batch) {
            const size_t count = std::min(batch, queries.size() - first);
            const auto results = searcher.search_gpu_batch(std::span<const std::string>(queries.data() + first, count), options);
            if (!check) continue;
            for (size_t i = 0; i < count; ++i) {
                if (results[i].hits != expected[first + i]) throw Error("a GPU batch returned different results");
            }
        }
    };
    pass(true);
    std::vector<double> seconds;
    for (unsigned r = 0; r < repeat; ++r) {
        const auto start = std::chrono::steady_clock::now();
        pass(false);
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(seconds.begin(), seconds.end());
    const double median = seconds[seconds.size() / 2];
    ThroughputRow row;
    row.mode = options.mode == QueryMode::kAnd ? "AND" : "OR";
    row.k = options.k;
    row.batch = batch;
    row.queries_per_second = static_cast<double>(queries.size()) / median;
    const auto calls = static_cast<double>((queries.size() + batch - 1) / batch);
    row.batch_ms = 1000.0 * median / calls;
    return row;
}

tools::Flags bench_flags() {
    using tools::Repeats;
    tools::Flags flags;
    flags.add({.name = "--queries", .value_name = "N", .help = "queries drawn from the index's vocabulary (default 200)"});
    flags.add({.name = "--seed", .value_name = "S", .help = "their random seed (default 1)"});
    flags.add({.name = "--repeat", .value_name = "R", .help = "timed runs per query; its latency is their median (default 5)"});
    flags.add({.name = "--k", .value_name = "K", .help = "results per query; may be repeated (default 10 and 1000)",
               .repeats = Repeats::kCollect});
    flags.add({.name = "--write-queries", .value_name = "FILE", .help = "also write the queries, one 'qid<TAB>text' a line"});
    flags.add({.name = "--gpu", .help = "also GPU rows and the batch throughput table"});
    flags.add({.name = "--batch", .value_name = "B", .help = "GPU queries per batch; may be repeated (default 1, 8, 32, 128)",
               .repeats = Repeats::kCollect});
    flags.add({.name = "--help", .help = "this help", .alias = "-h", .stops_parsing = true});
    return flags;
}

std::string bench_help(const tools::Flags& flags) {
    return flags.help({.usage = "usage: invidx_query_bench IDX [--queries N] [--seed S] [--repeat R] [--k K]... [--write-queries FILE] [--gpu [--batch B]...]",
                       .description = "Query latency on one thread, the run files against the query layout (and the GPU with\n"
                                      "--gpu). IDX must have the query layout: invidx merge IDX --layout query [--codec NAME]",
                       .options_heading = "Options:\n",
                       .example = "  invidx_query_bench /tmp/idx --queries 200 --k 10 --k 1000\n",
                       .footer = "Exit codes: 0 done; 1 failed (or the paths disagreed); 2 bad command line.\n"});
}

}  // namespace

int main(int argc, char** argv) {
    std::string directory;
    size_t query_count = 200;
    uint32_t seed = 1;
    unsigned repeat = 5;
    std::vector<size_t> depths;
    std::string write_queries;
    bool gpu = false;
    std::vector<size_t> batches;
    const tools::Flags flags = bench_flags();
    try {
        const tools::ParsedFlags given = flags.parse(std::vector<std::string>(argv + 1, argv + argc));
        if (given.has("--help")) {
            std::cout << bench_help(flags);
            return 0;
        }
        if (auto value = given.value("--queries")) query_count = tools::positive_integer("--queries", *value);
        if (auto value = given.value("--seed")) seed = static_cast<uint32_t>(tools::unsigned_integer("--seed", *value));
        if (auto value = given.value("--repeat")) repeat = static_cast<unsigned>(tools::positive_integer("--repeat", *value));
        for (const auto& value : given.values("--k")) depths.push_back(tools::positive_integer("--k", value));
        for (const auto& value : given.values("--batch")) batches.push_back(tools::positive_integer("--batch", value));
        write_queries = given.value("--write-queries").value_or("");
        gpu = given.has("--gpu");
        if (given.arguments().size() > 1) throw tools::UsageError("unexpected argument " + given.arguments()[1]);
        if (given.arguments().empty()) throw tools::UsageError("no index");
        directory = given.arguments()[0];
    } catch (const tools::UsageError& error) {
        tools::exit_with_usage_error("invidx_query_bench", error.what());
    }
    try {
        if (depths.empty()) depths = {10, 1000};
        if (batches.empty()) batches = {1, 8, 32, 128};

        const IndexReader index(directory);
        // Reads the length norms on every thread; --gpu: GPU 0 as well.
        const Searcher searcher(index, {}, gpu ? std::optional<GpuOptions>(GpuOptions{}) : std::nullopt);
        if (searcher.query_postings() == nullptr) {
            throw Error(directory + " has no query layout: run invidx merge " + directory + " --layout query");
        }
        // From here on one thread: latency, not throughput.
        std::optional<oneapi::tbb::global_control> one_thread;
        one_thread.emplace(oneapi::tbb::global_control::max_allowed_parallelism, 1);

        const Bands bands = vocabulary_bands(index);
        const auto queries = make_queries(bands, query_count, seed);
        if (!write_queries.empty()) {
            std::ofstream out(write_queries);
            for (size_t q = 0; q < queries.size(); ++q) out << q + 1 << '\t' << queries[q] << '\n';
            if (!out) throw Error("cannot write " + write_queries);
        }
        size_t terms = 0;
        for (const auto& query : queries) terms += static_cast<size_t>(std::count(query.begin(), query.end(), ' ')) + 1;
        std::printf("index %s: %llu documents, %llu terms, %llu postings, query.post codec %s\n", directory.c_str(),
                    static_cast<unsigned long long>(index.num_documents()), static_cast<unsigned long long>(index.term_count()),
                    static_cast<unsigned long long>(index.num_postings()),
                    std::string(searcher.query_postings()->codec().name).c_str());
        std::printf("queries: %zu (seed %u), %.2f terms each; bands: %zu frequent (df >= N/10), %zu medium, %zu rare (df >= 2)\n",
                    queries.size(), seed, static_cast<double>(terms) / static_cast<double>(queries.size()),
                    bands.frequent.size(), bands.medium.size(), bands.rare.size());
        std::printf("one thread; latency per query = median of %u runs; mean and p99 over the queries\n", repeat);

        std::vector<Row> rows;
        std::vector<ThroughputRow> throughput;
        std::vector<double> cpu_qps;  // per (mode, k): the query layout path, one thread
        std::vector<ThroughputRow> impact_throughput;  // per (mode, k): GPU impact batches of the largest size
        std::vector<double> impact_cpu_qps;            // per (mode, k): the CPU impact path, one thread
        for (const QueryMode mode : {QueryMode::kAnd, QueryMode::kOr}) {
            for (const size_t k : depths) {
                std::vector<std::vector<ScoredDocument>> by_run_files, by_layout;
                rows.push_back(measure(searcher, queries, {.k = k, .mode = mode, .algorithm = Algorithm::kMaxscore}, repeat, by_run_files));
                rows.push_back(measure(searcher, queries, {.k = k, .mode = mode, .algorithm = Algorithm::kBlockMaxMaxscore}, repeat, by_layout));
                if (by_run_files != by_layout) throw Error("the two paths returned different results");
                if (mode == QueryMode::kOr) {
                    rows.push_back(measure(searcher, queries, {.k = k, .mode = mode, .algorithm = Algorithm::kBlockMaxWand}, repeat, by_layout));
                    if (by_run_files != by_layout) throw Error("Block-Max WAND returned different results");
                }
                std::vector<std::vector<ScoredDocument>> by_impacts;
                double impact_cpu_ms = 0.0;
                if (searcher.query_postings()->has_impacts()) {
                    rows.push_back(measure(searcher, queries, {.k = k, .mode = mode, .scoring = QueryScoring::kImpact}, repeat, by_impacts));
                    rows.back().bm25_overlap = mean_overlap(by_impacts, by_layout);
                    impact_cpu_ms = rows.back().mean_ms;
                }
                if (gpu) {
                    // The first pass (untimed in measure) fills the device's list cache.
                    SearchOptions on_gpu{.k = k, .mode = mode};
                    on_gpu.device = QueryDevice::kGpu;
                    std::vector<std::vector<ScoredDocument>> by_gpu;
                    rows.push_back(measure(searcher, queries, on_gpu, repeat, by_gpu));
                    if (by_gpu != by_layout) throw Error("the GPU returned different results");
                    // CPU throughput on this one thread, for the batch table.
                    const size_t impact_rows = searcher.query_postings()->has_impacts() ? 1 : 0;
                    const Row& best_cpu = rows[rows.size() - (mode == QueryMode::kOr ? 3 : 2) - impact_rows];
                    for (const size_t batch : batches) {
                        throughput.push_back(measure_batches(searcher, queries, on_gpu, batch, repeat, by_layout));
                    }
                    cpu_qps.push_back(1000.0 / best_cpu.mean_ms);
                    if (searcher.query_postings()->has_impacts()) {
                        SearchOptions impacts_on_gpu = on_gpu;
                        impacts_on_gpu.scoring = QueryScoring::kImpact;
                        std::vector<std::vector<ScoredDocument>> by_gpu_impacts;
                        rows.push_back(measure(searcher, queries, impacts_on_gpu, repeat, by_gpu_impacts));
                        rows.back().bm25_overlap = mean_overlap(by_gpu_impacts, by_layout);
                        if (by_gpu_impacts != by_impacts) throw Error("the GPU's impact scoring returned different results");
                        impact_throughput.push_back(measure_batches(searcher, queries, impacts_on_gpu, batches.back(), repeat, by_impacts));
                        impact_cpu_qps.push_back(1000.0 / impact_cpu_ms);
                    }
                }
            }
        }

        if (searcher.query_postings()->has_impacts()) {
            std::printf("impacts: %u bits, largest BM25 weight %.6f\n", searcher.query_postings()->impact_bits(),
                        searcher.query_postings()->max_weight());
        }
        std::printf("\n| mode | k | path | mean ms | p99 ms | results/query | scored/query | blocks decoded | BM25 top k kept |\n");
        std::printf("|---|---:|---|---:|---:|---:|---:|---:|---:|\n");
        for (const Row& row : rows) {
            char blocks[32] = "-";
            if (row.blocks_decoded >= 0.0) std::snprintf(blocks, sizeof blocks, "%.1f%%", 100.0 * row.blocks_decoded);
            char overlap[32] = "-";
            if (row.bm25_overlap >= 0.0) std::snprintf(overlap, sizeof overlap, "%.1f%%", 100.0 * row.bm25_overlap);
            std::printf("| %s | %zu | %s | %.3f | %.3f | %.1f | %.0f | %s | %s |\n", row.mode.c_str(), row.k, row.path.c_str(),
                        row.mean_ms, row.p99_ms, row.results, row.scored, blocks, overlap);
        }
        if (!throughput.empty()) {
            // The CPU's throughput on every core for comparison: search_all (oneTBB) on the query layout.
            one_thread.reset();
            const std::vector<double> cpu_all_qps = all_threads_qps(searcher, queries, depths, QueryScoring::kBm25, repeat);
            const GpuQueryStats stats = searcher.gpu_stats();
            std::printf("\nGPU %s: list cache %.1f MB in %llu lists (%llu misses, %llu hits), %zu queries per batch at most\n",
                        stats.device.c_str(), static_cast<double>(stats.cache_bytes) / 1e6,
                        static_cast<unsigned long long>(stats.cache_lists), static_cast<unsigned long long>(stats.cache_misses),
                        static_cast<unsigned long long>(stats.cache_hits), searcher.max_gpu_batch());
            std::printf("throughput: the %zu queries through Searcher::search_gpu_batch in batches of B (analysis included),\n"
                        "median of %u passes; CPU 1 thread = 1000 / the query layout's mean latency; CPU %u threads =\n"
                        "Searcher::search_all on the query layout, median of %u passes\n\n",
                        queries.size(), repeat, static_cast<unsigned>(std::thread::hardware_concurrency()), repeat);
            std::printf("| mode | k | batch | GPU queries/s | ms per batch | CPU queries/s, 1 thread | GPU / CPU 1 thread | CPU queries/s, all threads | GPU / CPU all threads |\n");
            std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (size_t i = 0; i < throughput.size(); ++i) {
                const ThroughputRow& row = throughput[i];
                const double cpu = cpu_qps[i / batches.size()];
                const double cpu_all = cpu_all_qps[i / batches.size()];
                std::printf("| %s | %zu | %zu | %.0f | %.3f | %.0f | %.1fx | %.0f | %.1fx |\n", row.mode.c_str(), row.k, row.batch,
                            row.queries_per_second, row.batch_ms, cpu, row.queries_per_second / cpu, cpu_all,
                            row.queries_per_second / cpu_all);
            }
        }
        if (!impact_throughput.empty()) {
            // Impact scoring: GPU batches against the CPU's impact path on one thread and on every thread.
            const std::vector<double> cpu_all_qps = all_threads_qps(searcher, queries, depths, QueryScoring::kImpact, repeat);
            std::printf("\nimpact scoring (--scoring impact), the same way:\n\n");
            std::printf("| mode | k | batch | GPU queries/s | ms per batch | CPU queries/s, 1 thread | GPU / CPU 1 thread | CPU queries/s, all threads | GPU / CPU all threads |\n");
            std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (size_t i = 0; i < impact_throughput.size(); ++i) {
                const ThroughputRow& row = impact_throughput[i];
                std::printf("| %s | %zu | %zu | %.0f | %.3f | %.0f | %.1fx | %.0f | %.1fx |\n", row.mode.c_str(), row.k, row.batch,
                            row.queries_per_second, row.batch_ms, impact_cpu_qps[i], row.queries_per_second / impact_cpu_qps[i],
                            cpu_all_qps[i], row.queries_per_second / cpu_all_qps[i]);
            }
        }
        return 0;
    } catch (const std::exception& error) {
        std::cerr << "invidx_query_bench: " << error.what() << "\n";
        return 1;
    }
}
