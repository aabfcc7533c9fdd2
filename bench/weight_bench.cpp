// invidx_weight_bench: BM25 weighting throughput, every posting of an index
// weighted and quantized to impacts (what `invidx weight` computes), on the
// CPU with one thread, on the CPU with every thread (oneTBB, terms in
// parallel: store/impacts.hpp), and with --gpu on GPU 0
// (devices/gpu_weights.hpp: CUB primitives, transfers both ways included).
// The postings are first gathered from the index into memory (decoded,
// timed apart); each path then weights the same arrays, --repeat times, and
// its time is the median. Every path must give the same impacts (and the
// GPU weights within 1e-6 relative of the CPU's), or the program fails.
// Then the same from the query layout's compressed lists (query/layout_weights.hpp),
// where both sides decode: the CPU on every thread against the GPU given the
// lists' bp128 bytes (the host gathering them, transfers both ways and the
// device's decoding included).
// With --wired also the path `invidx weight --device gpu` takes
// (query/device_weights.hpp): query.post's bytes in one call when they fit
// --device-memory, else the postings gathered from the run files in chunks
// of terms, two passes when chunked; its input and a weigher of its own
// included.
//
//   invidx_weight_bench IDX [--bits N] [--repeat R] [--gpu] [--wired [--device-memory BYTES]]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>

#include "devices/gpu_weights.hpp"
#include "invidx/error.hpp"
#include "query/device_weights.hpp"
#include "query/layout_weights.hpp"
#include "store/bm25.hpp"
#include "store/impacts.hpp"
#include "store/index_reader.hpp"
#include "store/query_postings.hpp"
#include "tools/common/flags.hpp"

namespace {

using namespace invidx;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

struct CpuWeights {
    std::vector<double> weights;
    std::vector<uint32_t> impacts;
    double max_weight = 0.0;
};

// What gpu_posting_weights computes, on the CPU: store/impacts.hpp's
// functions over the gathered arrays, terms in parallel on the threads oneTBB may use.
CpuWeights cpu_posting_weights(const GpuWeightInput& input) {
    CpuWeights out;
    const uint64_t terms = input.term_offsets.size() - 1;
    const uint64_t postings = input.docids.size();
    const Bm25 bm25({.k1 = input.k1, .b = input.b}, input.document_lengths.size(), input.average_length);
    std::vector<double> norms(input.document_lengths.size());
    oneapi::tbb::parallel_for(size_t{0}, norms.size(), [&](size_t d) { norms[d] = bm25.length_norm(input.document_lengths[d]); });
    out.weights.resize(postings);
    out.max_weight = oneapi::tbb::parallel_reduce(
        oneapi::tbb::blocked_range<uint64_t>(0, terms), 0.0,
        [&](const oneapi::tbb::blocked_range<uint64_t>& range, double best) {
            for (uint64_t t = range.begin(); t != range.end(); ++t) {
                const uint64_t first = input.term_offsets[t];
                const uint64_t count = input.term_offsets[t + 1] - first;
                const auto weights = std::span(out.weights).subspan(first, count);
                posting_weights(bm25, count, std::span(input.docids).subspan(first, count),
                                std::span(input.tfs).subspan(first, count), norms, weights);
                for (const double w : weights) best = std::max(best, w);
            }
            return best;
        },
        [](double a, double b) { return std::max(a, b); });
    out.impacts.resize(postings);
    if (postings == 0) return out;
    const ImpactQuantizer quantizer(out.max_weight, input.bits);
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<uint64_t>(0, postings), [&](const oneapi::tbb::blocked_range<uint64_t>& range) {
        for (uint64_t p = range.begin(); p != range.end(); ++p) out.impacts[p] = quantizer(out.weights[p]);
    });
    return out;
}

template <class Run>
double median_seconds(unsigned repeat, Run run) {
    std::vector<double> times;
    for (unsigned r = 0; r < repeat; ++r) {
        const auto start = Clock::now();
        run();
        times.push_back(seconds_since(start));
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

tools::Flags bench_flags() {
    tools::Flags flags;
    flags.add({.name = "--bits", .value_name = "N", .help = "bits per impact (default 8)"});
    flags.add({.name = "--repeat", .value_name = "R", .help = "timed runs per path; the median counts (default 5)"});
    flags.add({.name = "--gpu", .help = "also GPU 0 (a CUDA build and device)"});
    flags.add({.name = "--wired", .help = "also invidx weight --device gpu's path on GPU 0: gathering and chunks included"});
    flags.add({.name = "--device-memory", .value_name = "BYTES", .help = "with --wired: device bytes per chunk (default half the GPU's)"});
    flags.add({.name = "--help", .help = "this help", .alias = "-h", .stops_parsing = true});
    return flags;
}

}  // namespace

int main(int argc, char** argv) {
    std::string directory;
    unsigned bits = kDefaultImpactBits;
    unsigned repeat = 5;
    bool gpu = false;
    bool wired = false;
    std::optional<uint64_t> device_memory;
    const tools::Flags flags = bench_flags();
    try {
        const tools::ParsedFlags given = flags.parse(std::vector<std::string>(argv + 1, argv + argc));
        if (given.has("--help")) {
            std::cout << flags.help({.usage = "usage: invidx_weight_bench IDX [--bits N] [--repeat R] [--gpu] [--wired [--device-memory BYTES]]",
                                     .description = "BM25 weighting throughput (postings/s): CPU 1 thread, CPU all threads, GPU.\n"
                                                    "IDX needs the query layout (its k1, b are used).",
                                     .options_heading = "Options:\n",
                                     .example = "  invidx_weight_bench /tmp/idx --gpu\n",
                                     .footer = "Exit codes: 0 done; 1 failed (or the paths disagreed); 2 bad command line.\n"});
            return 0;
        }
        if (auto value = given.value("--bits")) bits = static_cast<unsigned>(tools::positive_integer("--bits", *value));
        if (auto value = given.value("--repeat")) repeat = static_cast<unsigned>(tools::positive_integer("--repeat", *value));
        gpu = given.has("--gpu");
        wired = given.has("--wired");
        if (auto value = given.value("--device-memory")) {
            if (!wired) throw tools::UsageError("--device-memory needs --wired");
            device_memory = tools::positive_integer("--device-memory", *value);
        }
        if (given.arguments().size() != 1) throw tools::UsageError("one index, please");
        directory = given.arguments()[0];
    } catch (const tools::UsageError& error) {
        tools::exit_with_usage_error("invidx_weight_bench", error.what());
    }
    try {
        const IndexReader index(directory);
        const QueryPostings layout(index);
        GpuWeightInput input;
        input.k1 = layout.parameters().k1;
        input.b = layout.parameters().b;
        input.bits = bits;
        input.average_length = index.average_length() > 0.0 ? index.average_length() : 1.0;
        const auto gather_start = Clock::now();
        input.term_offsets.reserve(index.term_count() + 1);
        input.term_offsets.push_back(0);
        input.docids.reserve(index.num_postings());
        input.tfs.reserve(index.num_postings());
        for (uint64_t t = 0; t < index.term_count(); ++t) {
            const auto list = index.postings(t);
            input.docids.insert(input.docids.end(), list.docids.begin(), list.docids.end());
            input.tfs.insert(input.tfs.end(), list.tfs.begin(), list.tfs.end());
            input.term_offsets.push_back(input.docids.size());
        }
        input.document_lengths.resize(index.num_documents());
        for (uint32_t d = 0; d < index.num_documents(); ++d) input.document_lengths[d] = index.document_length(d);
        const double gather = seconds_since(gather_start);
        const auto postings = static_cast<double>(input.docids.size());
        std::printf("index %s: %llu documents, %llu terms, %llu postings; k1 %g, b %g, %u-bit impacts\n", directory.c_str(),
                    static_cast<unsigned long long>(index.num_documents()), static_cast<unsigned long long>(index.term_count()),
                    static_cast<unsigned long long>(input.docids.size()), input.k1, input.b, bits);
        std::printf("gathering the postings from the run files (decoding, not timed below): %.3f s\n", gather);
        std::printf("median of %u runs per path\n\n", repeat);

        const CpuWeights reference = cpu_posting_weights(input);
        struct Row {
            std::string path;
            double seconds;
        };
        std::vector<Row> rows;
        {
            oneapi::tbb::global_control one(oneapi::tbb::global_control::max_allowed_parallelism, 1);
            rows.push_back({"CPU, 1 thread", median_seconds(repeat, [&] { (void)cpu_posting_weights(input); })});
        }
        const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
        rows.push_back({"CPU, " + std::to_string(threads) + " threads", median_seconds(repeat, [&] { (void)cpu_posting_weights(input); })});
        if (gpu) {
            const GpuWeights device = gpu_posting_weights(input, 0, true);  // untimed: the device's start-up
            if (device.impacts != reference.impacts) throw Error("the GPU's impacts differ from the CPU's");
            for (size_t p = 0; p < device.weights.size(); ++p) {
                if (std::abs(device.weights[p] - reference.weights[p]) > 1e-6 * reference.weights[p]) {
                    throw Error("the GPU's weight of posting " + std::to_string(p) + " differs from the CPU's");
                }
            }
            rows.push_back({device.device + ", transfers included",
                            median_seconds(repeat, [&] { (void)gpu_posting_weights(input, 0, false); })});
        }
        if (wired) {
            const DeviceWeightOptions options{.device = 0, .bits = bits, .parameters = layout.parameters(), .memory_budget = device_memory};
            const DeviceImpacts device = device_posting_impacts(index, options, &layout);  // untimed: the device's start-up
            if (!std::equal(device.impacts.impacts.begin(), device.impacts.impacts.end(), reference.impacts.begin(),
                            reference.impacts.end())) {
                throw Error("the wired GPU path's impacts differ from the CPU's");
            }
            rows.push_back({device.device + " via invidx weight --device gpu, from " + device.source + " in " + std::to_string(device.chunks) +
                                " chunk(s) of <= " + std::to_string(device.memory_budget) + " bytes, its input included",
                            median_seconds(repeat, [&] { (void)device_posting_impacts(index, options, &layout); })});
        }
        auto print_rows = [&](const std::vector<Row>& table) {
            const double all_threads = table[1].seconds;
            std::printf("| path | seconds | M postings/s | against CPU all threads |\n|---|---:|---:|---:|\n");
            for (const Row& row : table) {
                std::printf("| %s | %.4f | %.1f | %.2fx |\n", row.path.c_str(), row.seconds, postings / row.seconds / 1e6,
                            all_threads / row.seconds);
            }
        };
        std::printf("postings gathered in memory (decoded from the run files beforehand):\n");
        print_rows(rows);

        if (layout.codec().name == "bp128" && bits <= 8) {
            // 8-bit impacts, one byte a posting, as stored queries read them.
            std::vector<Row> layout_rows;
            std::vector<uint8_t> impacts(input.docids.size());
            auto same_as_reference = [&](const char* path) {
                for (size_t p = 0; p < impacts.size(); ++p) {
                    if (impacts[p] != reference.impacts[p]) throw Error(std::string(path) + ": impact of posting " + std::to_string(p) + " differs");
                }
            };
            (void)layout_impacts_on_cpu(index, layout, bits, std::span(impacts));  // untimed: checks every block's CRC once
            same_as_reference("query.post on the CPU");
            {
                oneapi::tbb::global_control one(oneapi::tbb::global_control::max_allowed_parallelism, 1);
                layout_rows.push_back({"CPU, 1 thread", median_seconds(repeat, [&] { (void)layout_impacts_on_cpu(index, layout, bits, std::span(impacts)); })});
            }
            layout_rows.push_back({"CPU, " + std::to_string(threads) + " threads",
                                   median_seconds(repeat, [&] { (void)layout_impacts_on_cpu(index, layout, bits, std::span(impacts)); })});
            if (gpu) {
                std::fill(impacts.begin(), impacts.end(), 0);
                // One call with its own weigher: device arrays and pinned staging allocated in it.
                const auto first_start = Clock::now();
                GpuLayoutWeightInput layout_input = layout_weight_input(index, layout, bits);
                GpuLayoutImpacts last = gpu_layout_impacts(layout_input, impacts.data(), impacts.size(), 0);
                const double first_call = seconds_since(first_start);
                same_as_reference("query.post on the GPU");
                GpuLayoutWeigher weigher(0);
                (void)weigher.impacts(layout_input, impacts.data(), impacts.size());  // untimed: allocates
                const double host = median_seconds(repeat, [&] { layout_input = layout_weight_input(index, layout, bits); });
                const double device = median_seconds(repeat, [&] { last = weigher.impacts(layout_input, impacts.data(), impacts.size()); });
                same_as_reference("query.post on the GPU (weigher)");
                layout_rows.push_back({last.device + ", transfers included, buffers kept between calls", median_seconds(repeat, [&] {
                                           const GpuLayoutWeightInput fresh = layout_weight_input(index, layout, bits);
                                           last = weigher.impacts(fresh, impacts.data(), impacts.size());
                                       })});
                layout_rows.push_back({last.device + ", one call allocating its buffers (first call, not a median)", first_call});
                std::printf("\nGPU from query.post: %.1f MB of the file in (%.2f bytes a posting), %.1f MB of lengths and dfs, "
                            "%.1f MB of impacts out; %llu blocks; %.1f MB of device memory. Host input (dfs, lengths) %.4f s, "
                            "device call %.4f s; CUDA events: copies in %.4f, block table %.4f, weights %.4f, copies out %.4f\n",
                            layout_input.file_bytes / 1e6, layout_input.file_bytes / postings,
                            (layout_input.document_lengths.size() * 4.0 + layout_input.term_dfs.size() * 8.0) / 1e6, postings / 1e6,
                            static_cast<unsigned long long>(last.blocks), weigher.device_bytes() / 1e6, host, device,
                            last.times.copies_in, last.times.blocks, last.times.weights, last.times.copies_out);
            }
            std::printf("\nfrom query.post's bp128 lists, 8-bit impacts (decoding included on both sides):\n");
            print_rows(layout_rows);
        }
        return 0;
    } catch (const std::exception& error) {
        std::cerr << "invidx_weight_bench: " << error.what() << "\n";
        return 1;
    }
}
