// invidx_learned_sparse_bench: weighted impact queries (learned sparse
// retrieval: SPLADE, uniCOIL, DeepImpact) on a generated collection, CPU and
// GPU, checked against exhaustive evaluation.
//
// The collection is learned-sparse-like: --documents documents of 100 to
// 300 distinct terms each from a Zipf-like vocabulary of --vocabulary terms
// (term rank r drawn with probability ∝ 1/(r + 10)), each with an integer
// weight 1..255 skewed to small ones (1 + ⌊254 · u³⌋), as an expansion model
// quantized to 8 bits writes them. It is written as jsonvector JSONL and
// built through the library's pipeline (the weights become the tfs), then
// given the query layout whose impacts are the tfs (write_tf_impact_layout).
// Queries: --queries of 20 to 100 distinct terms drawn from the same
// distribution, integer weights 1..255 skewed alike.
//
// Timed, for each k (--k, default 10 and 1000), over the whole query set:
//   exhaustive         brute force over the run files' postings, one thread
//                      (the reference every other row must equal)
//   cpu, 1 thread      CpuEvaluator, one query after another
//   cpu, all threads   CpuEvaluator, queries in parallel (oneTBB)
//   gpu, one query     GpuEvaluator::evaluate, one query after another
//   gpu, batch B       GpuEvaluator::evaluate_batch, B queries at a time
// (GPU rows where a GPU is usable; a first untimed pass loads the device's
// list cache. The last column says which GPU path answered the row's
// queries: "dense", the dense impact OR path for long queries, or "term
// rounds", the term-at-a-time OR of devices/cuda/query/disjunctive.cu.) Every row's hits and scores must equal the exhaustive
// ones, or the program fails. The table comes last.
//
//   invidx_learned_sparse_bench [--documents N] [--queries Q] [--vocabulary V] [--seed S] [--k K]...
//                               [--batch B]... [--dir DIR] [--no-gpu]
// Default size runs in about a minute on 2 cores; --documents 1000000 for the GPU machine.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>
#include <oneapi/tbb/parallel_for.h>

#include "devices/gpu_devices.hpp"
#include "invidx/config.hpp"
#include "invidx/error.hpp"
#include "invidx/pipeline.hpp"
#include "query/cpu_evaluator.hpp"
#include "query/gpu_evaluator.hpp"
#include "query/query_plan.hpp"
#include "query/scored_index.hpp"
#include "store/index_reader.hpp"
#include "store/query_postings.hpp"
#include "store/tf_impacts.hpp"
#include "tests/support/standard_pipeline.hpp"
#include "tools/common/flags.hpp"

namespace {

using namespace invidx;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Term ranks with probability ∝ 1/(r + 10), by inverse CDF.
class ZipfTerms {
public:
    explicit ZipfTerms(size_t vocabulary) : cumulative_(vocabulary) {
        double sum = 0.0;
        for (size_t r = 0; r < vocabulary; ++r) cumulative_[r] = sum += 1.0 / (static_cast<double>(r) + 10.0);
        for (double& value : cumulative_) value /= sum;
    }
    size_t draw(std::mt19937_64& random) const {
        const double u = std::uniform_real_distribution<double>(0.0, 1.0)(random);
        return std::min<size_t>(cumulative_.size() - 1,
                                static_cast<size_t>(std::lower_bound(cumulative_.begin(), cumulative_.end(), u) - cumulative_.begin()));
    }
    size_t size() const { return cumulative_.size(); }

private:
    std::vector<double> cumulative_;
};

uint32_t skewed_weight(std::mt19937_64& random) {
    const double u = std::uniform_real_distribution<double>(0.0, 1.0)(random);
    return 1 + static_cast<uint32_t>(254.0 * u * u * u);
}

std::string term_name(size_t rank) { return "t" + std::to_string(rank); }

// `count` distinct ranks.
std::vector<size_t> distinct_terms(std::mt19937_64& random, const ZipfTerms& terms, size_t count) {
    std::set<size_t> chosen;
    count = std::min(count, terms.size());
    while (chosen.size() < count) chosen.insert(terms.draw(random));
    return {chosen.begin(), chosen.end()};
}

void write_collection(const fs::path& file, size_t documents, const ZipfTerms& terms, std::mt19937_64& random) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot write " + file.string());
    std::string line;
    for (size_t d = 0; d < documents; ++d) {
        line = "{\"id\":\"doc" + std::to_string(d) + "\",\"vector\":{";
        const auto ranks = distinct_terms(random, terms, 100 + random() % 201);
        for (size_t i = 0; i < ranks.size(); ++i) {
            line += (i ? ",\"" : "\"") + term_name(ranks[i]) + "\":" + std::to_string(skewed_weight(random));
        }
        line += "}}\n";
        out << line;
    }
    if (!out) throw Error("cannot write " + file.string());
}

void build(const fs::path& input, const fs::path& output) {
    const unsigned cores = std::max(2u, std::thread::hardware_concurrency());
    const unsigned parsers = std::max(1u, cores / 2), indexers = std::max(1u, cores / 4);
    const nlohmann::json description = standard_pipeline_description(
        nlohmann::json::array({{{"path", input.string()}, {"format", "jsonvector"}}}), output, parsers, indexers);
    Pipeline pipeline(PipelineConfig::from_json(description));
    (void)pipeline.run();
}

// The plans of the query set: present terms only (a generated term the collection lacks is dropped).
std::vector<QueryPlan> query_plans(const IndexReader& index, size_t count, const ZipfTerms& terms, std::mt19937_64& random) {
    std::vector<QueryPlan> plans;
    while (plans.size() < count) {
        QueryPlan plan;
        plan.scoring = QueryScoring::kImpact;
        for (const size_t rank : distinct_terms(random, terms, 20 + random() % 81)) {
            const auto found = index.find_term(term_name(rank));
            const uint32_t weight = skewed_weight(random);
            if (!found) continue;
            plan.terms.terms.push_back(QueryTerm{term_name(rank), *found, index.term(*found).df});
            plan.query_weights.push_back(static_cast<double>(weight));
            plan.weights.push_back(1.0);  // BM25's: unused by impact scoring
        }
        if (!plan.terms.terms.empty()) plans.push_back(std::move(plan));
    }
    return plans;
}

// The exhaustive top k: every posting of every term, Σ weight · tf, ties by smaller docid.
std::vector<ScoredDocument> exhaustive(const IndexReader& index, const QueryPlan& plan, std::vector<double>& scores,
                                       std::vector<uint32_t>& touched) {
    touched.clear();
    for (size_t i = 0; i < plan.terms.terms.size(); ++i) {
        const auto list = index.postings(*plan.terms.terms[i].index);
        const double weight = plan.query_weights[i];
        for (size_t p = 0; p < list.docids.size(); ++p) {
            if (scores[list.docids[p]] == 0.0) touched.push_back(list.docids[p]);
            scores[list.docids[p]] += weight * static_cast<double>(list.tfs[p]);  // integers: exact
        }
    }
    std::vector<ScoredDocument> all;
    all.reserve(touched.size());
    for (const uint32_t docid : touched) {
        all.push_back({docid, scores[docid]});
        scores[docid] = 0.0;
    }
    const size_t k = std::min(plan.k, all.size());
    std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k), all.end(), ranks_before);
    all.resize(k);
    return all;
}

struct Row {
    std::string path;
    size_t k = 0;
    double seconds = 0.0;  // the whole query set
    size_t queries = 0;
    std::string gpu_path = "-";  // which GPU path answered the row's queries
};

// The GPU path of the queries answered between two stats() readings: the
// dense impact OR path (devices/cuda/query/dense_impact.cu), term rounds
// (disjunctive.cu), or both.
std::string gpu_path(const GpuQueryStats& before, const GpuQueryStats& after) {
    const uint64_t all = after.queries - before.queries, dense = after.dense_queries - before.dense_queries;
    if (dense == all) return "dense (" + std::to_string(dense) + ")";
    if (dense == 0) return "term rounds (" + std::to_string(all) + ")";
    return "dense " + std::to_string(dense) + ", term rounds " + std::to_string(all - dense);
}

void require_equal(const std::string& path, const std::vector<std::vector<ScoredDocument>>& got,
                   const std::vector<std::vector<ScoredDocument>>& expected) {
    for (size_t q = 0; q < expected.size(); ++q) {
        if (got[q] != expected[q]) throw Error(path + ": query " + std::to_string(q) + " differs from exhaustive evaluation");
    }
}

tools::Flags bench_flags() {
    using tools::Repeats;
    tools::Flags flags;
    flags.add({.name = "--documents", .value_name = "N", .help = "documents to generate (default 20000)"});
    flags.add({.name = "--queries", .value_name = "Q", .help = "queries (default 100)"});
    flags.add({.name = "--vocabulary", .value_name = "V", .help = "terms of the vocabulary (default 30000)"});
    flags.add({.name = "--seed", .value_name = "S", .help = "random seed (default 1)"});
    flags.add({.name = "--k", .value_name = "K", .help = "results per query; may be repeated (default 10 and 1000)",
               .repeats = Repeats::kCollect});
    flags.add({.name = "--batch", .value_name = "B", .help = "GPU queries per batch; may be repeated (default 32 and the largest)",
               .repeats = Repeats::kCollect});
    flags.add({.name = "--dir", .value_name = "DIR", .help = "work directory, kept (default: a temporary one, removed)"});
    flags.add({.name = "--no-gpu", .help = "CPU rows only, even where a GPU is usable"});
    flags.add({.name = "--help", .help = "this help", .alias = "-h", .stops_parsing = true});
    return flags;
}

}  // namespace

int main(int argc, char** argv) {
    size_t documents = 20000, query_count = 100, vocabulary = 30000;
    uint64_t seed = 1;
    std::vector<size_t> depths, batches;
    std::optional<fs::path> kept_dir;
    bool use_gpu = true;
    const tools::Flags flags = bench_flags();
    try {
        const tools::ParsedFlags given = flags.parse(std::vector<std::string>(argv + 1, argv + argc));
        if (given.has("--help")) {
            std::cout << flags.help({.usage = "usage: invidx_learned_sparse_bench [--documents N] [--queries Q] [--vocabulary V] "
                                              "[--seed S] [--k K]... [--batch B]... [--dir DIR] [--no-gpu]",
                                     .description = "Weighted impact queries on a generated learned-sparse collection, CPU and GPU,\n"
                                                    "checked against exhaustive evaluation.",
                                     .options_heading = "Options:\n",
                                     .example = "  invidx_learned_sparse_bench --documents 1000000 --queries 1000\n",
                                     .footer = "Exit codes: 0 done; 1 failed (or a path disagreed); 2 bad command line.\n"});
            return 0;
        }
        if (auto value = given.value("--documents")) documents = tools::positive_integer("--documents", *value);
        if (auto value = given.value("--queries")) query_count = tools::positive_integer("--queries", *value);
        if (auto value = given.value("--vocabulary")) vocabulary = tools::positive_integer("--vocabulary", *value);
        if (auto value = given.value("--seed")) seed = tools::unsigned_integer("--seed", *value);
        for (const auto& value : given.values("--k")) depths.push_back(tools::positive_integer("--k", value));
        for (const auto& value : given.values("--batch")) batches.push_back(tools::positive_integer("--batch", value));
        if (auto value = given.value("--dir")) kept_dir = fs::path(*value);
        use_gpu = !given.has("--no-gpu");
        if (!given.arguments().empty()) throw tools::UsageError("unexpected argument " + given.arguments()[0]);
    } catch (const tools::UsageError& error) {
        tools::exit_with_usage_error("invidx_learned_sparse_bench", error.what());
    }
    if (depths.empty()) depths = {10, 1000};

    const fs::path dir = kept_dir ? *kept_dir : fs::temp_directory_path() / ("invidx-learned-sparse-" + std::to_string(::getpid()));
    try {
        fs::create_directories(dir);
        std::mt19937_64 random(seed);
        const ZipfTerms terms(vocabulary);
        auto start = Clock::now();
        write_collection(dir / "docs.jsonl", documents, terms, random);
        const double generate_seconds = seconds_since(start);
        start = Clock::now();
        fs::remove_all(dir / "idx");
        build(dir / "docs.jsonl", dir / "idx");
        const double build_seconds = seconds_since(start);
        start = Clock::now();
        const unsigned bits = write_tf_impact_layout(dir / "idx");
        const double layout_seconds = seconds_since(start);

        const IndexReader index(dir / "idx");
        const ScoredIndex scored(index, {});
        const CpuEvaluator cpu(scored);
        std::optional<GpuEvaluator> gpu;
        if (use_gpu && !list_gpus().devices.empty()) gpu.emplace(scored, GpuOptions{});
        auto plans = query_plans(index, query_count, terms, random);
        size_t total_terms = 0;
        for (const auto& plan : plans) total_terms += plan.terms.terms.size();
        std::printf("collection: %zu documents, %llu terms, %llu postings, %u-bit impacts (the tfs); generated %.1f s, "
                    "built %.1f s, layout %.1f s\n",
                    documents, static_cast<unsigned long long>(index.term_count()),
                    static_cast<unsigned long long>(index.num_postings()), bits, generate_seconds, build_seconds, layout_seconds);
        std::printf("queries: %zu, %.1f terms on average; %u CPU threads; GPU: %s\n\n", plans.size(),
                    static_cast<double>(total_terms) / static_cast<double>(plans.size()), std::thread::hardware_concurrency(),
                    gpu ? "yes" : "none");

        std::vector<Row> rows;
        const size_t n = plans.size();
        for (const size_t k : depths) {
            for (auto& plan : plans) plan.k = k;
            std::vector<std::vector<ScoredDocument>> expected(n), got(n);
            {
                std::vector<double> scores(index.num_documents(), 0.0);
                std::vector<uint32_t> touched;
                start = Clock::now();
                for (size_t q = 0; q < n; ++q) expected[q] = exhaustive(index, plans[q], scores, touched);
                rows.push_back({"exhaustive, 1 thread", k, seconds_since(start), n});
            }
            start = Clock::now();
            for (size_t q = 0; q < n; ++q) got[q] = cpu.evaluate(plans[q]).hits;
            rows.push_back({"cpu, 1 thread", k, seconds_since(start), n});
            require_equal("cpu, 1 thread", got, expected);

            start = Clock::now();
            oneapi::tbb::parallel_for(size_t{0}, n, [&](size_t q) { got[q] = cpu.evaluate(plans[q]).hits; });
            rows.push_back({"cpu, all threads", k, seconds_since(start), n});
            require_equal("cpu, all threads", got, expected);

            if (gpu) {
                (void)gpu->evaluate_batch(plans);  // loads the device's list cache
                auto before = gpu->stats();
                start = Clock::now();
                for (size_t q = 0; q < n; ++q) got[q] = gpu->evaluate(plans[q]).hits;
                rows.push_back({"gpu, one query", k, seconds_since(start), n, gpu_path(before, gpu->stats())});
                require_equal("gpu, one query", got, expected);
                std::vector<size_t> sizes = batches;
                if (sizes.empty()) sizes = {32, gpu->max_batch()};
                for (const size_t size : sizes) {
                    before = gpu->stats();
                    start = Clock::now();
                    for (size_t first = 0; first < n; first += size) {
                        const size_t count = std::min(size, n - first);
                        auto results = gpu->evaluate_batch(std::span<const QueryPlan>(plans.data() + first, count));
                        for (size_t j = 0; j < count; ++j) got[first + j] = std::move(results[j].hits);
                    }
                    const std::string name = "gpu, batch " + std::to_string(size);
                    rows.push_back({name, k, seconds_since(start), n, gpu_path(before, gpu->stats())});
                    require_equal(name, got, expected);
                }
            }
        }

        std::printf("every row's hits and scores equal exhaustive evaluation's\n\n");
        std::printf("| path | k | mean ms/query | queries/s | x cpu, 1 thread | x cpu, all threads | GPU path (queries) |\n"
                    "|---|---:|---:|---:|---:|---:|---|\n");
        for (const Row& row : rows) {
            double one_thread = 0.0, all_threads = 0.0;
            for (const Row& other : rows) {
                if (other.k == row.k && other.path == "cpu, 1 thread") one_thread = other.seconds;
                if (other.k == row.k && other.path == "cpu, all threads") all_threads = other.seconds;
            }
            std::printf("| %s | %zu | %.3f | %.1f | %.2f | %.2f | %s |\n", row.path.c_str(), row.k,
                        1000.0 * row.seconds / static_cast<double>(row.queries),
                        static_cast<double>(row.queries) / row.seconds, one_thread / row.seconds, all_threads / row.seconds,
                        row.gpu_path.c_str());
        }
    } catch (const std::exception& error) {
        std::fprintf(stderr, "invidx_learned_sparse_bench: %s\n", error.what());
        if (!kept_dir) fs::remove_all(dir);
        return 1;
    }
    if (!kept_dir) fs::remove_all(dir);
    return 0;
}
