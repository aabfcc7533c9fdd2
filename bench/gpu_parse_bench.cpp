// invidx_gpu_parse_bench: one GPU analyzer alone (the GPU parser's device
// work: CONTENT.md §3-7 on batches of records), on records decompressed and
// framed in memory first, one host thread, batch after batch. Prints the
// MB/s of record text over wall time and where the time went (the
// analyzer's CUDA events: copies in, pass 1's steps, pass 2, copies out;
// the host's packing), the median of P passes after a warm-up pass. With
// --check, the first pass's results are compared with the host reference.
// With --index, every batch's terms stay on the device (keep_on_device for
// every collection) and a gpu_hash term indexer on the same GPU takes them
// there, a run per pass: the parse-and-index chain with the data resident
// (issue #11), the indexer's device time from its CUDA events.
//
//   invidx_gpu_parse_bench [--passes P] [--batch-bytes B] [--positions] [--check] [--index] INPUT...
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "bench_corpus.hpp"
#include "devices/gpu_analysis.hpp"
#include "devices/gpu_term_indexer.hpp"
#include "invidx/collections.hpp"
#include "invidx/analysis_settings.hpp"
#include "invidx/error.hpp"
#include "nodes/read/input_files.hpp"

namespace {

using namespace invidx;

// Consecutive records of about `batch_bytes` each, as the frame node cuts them.
std::vector<GpuAnalysisInput> batches_of(const bench::Corpus& corpus, const AnalysisSettings& settings,
                                         size_t batch_bytes) {
    std::vector<GpuAnalysisInput> batches;
    size_t r = 0;
    while (r < corpus.records.size()) {
        const size_t first = corpus.records[r].offset;
        GpuAnalysisInput input;
        size_t bytes = 0;
        while (r < corpus.records.size() && (bytes == 0 || bytes + corpus.records[r].length <= batch_bytes)) {
            input.offsets.push_back(corpus.records[r].offset - first);
            input.lengths.push_back(static_cast<uint32_t>(corpus.records[r].length));
            input.html.push_back(corpus.records[r].html ? 1 : 0);
            bytes += corpus.records[r].length;
            ++r;
        }
        input.text = std::string_view(corpus.text).substr(first, input.offsets.back() + input.lengths.back());
        input.stopwords = settings.stopwords;
        input.stemmer = gpu_stemmer_named(settings.stemmer);
        input.positional = settings.positions;
        batches.push_back(std::move(input));
    }
    return batches;
}

[[noreturn]] void usage(const char* why) {
    if (why) std::cerr << "invidx_gpu_parse_bench: " << why << "\n";
    std::cerr << "usage: invidx_gpu_parse_bench [--passes P] [--batch-bytes B] [--positions] [--check] [--index] "
                 "INPUT...\n";
    std::exit(2);
}

// Stages a result's resident terms in the indexer as one batch and submits.
void index_resident(GpuTermIndexer& indexer, const GpuAnalysisResult& result, uint64_t sequence, uint64_t first_docid) {
    if (!result.resident || result.resident->count == 0) return;
    const ResidentTerms& terms = *result.resident;
    GpuStaging& staging = indexer.staging(terms.count, terms.arena_bytes);
    GpuStagedBatch& staged = staging.batches[staging.batch_count++];
    staged = GpuStagedBatch{};
    staged.sequence = sequence;
    staged.first_docid = first_docid;
    staged.terms_base = staging.terms_used;
    staged.occurrence_begin = static_cast<uint32_t>(staging.occurrence_count);
    staged.documents = static_cast<uint32_t>(result.documents());
    staged.terms_bytes = static_cast<uint32_t>(terms.arena_bytes);
    stage_resident_terms(staging, terms, result.resident);
    indexer.submit();
}

}  // namespace

int main(int argc, char** argv) {
    unsigned passes = 3;
    size_t batch_bytes = size_t{2} << 20;
    bool check = false;
    bool index = false;
    AnalysisSettings settings = AnalysisSettings::defaults();
    std::vector<InputSpec> specs;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--passes" || arg == "--batch-bytes") {
            if (i + 1 >= argc) usage("a value is missing");
            const long long value = std::strtoll(argv[++i], nullptr, 10);
            if (value < 1) usage("values must be at least 1");
            if (arg == "--passes") passes = static_cast<unsigned>(value);
            else batch_bytes = static_cast<size_t>(value);
        } else if (arg == "--positions") {
            settings.positions = true;
        } else if (arg == "--check") {
            check = true;
        } else if (arg == "--index") {
            index = true;
        } else if (arg == "-h" || arg == "--help") {
            usage(nullptr);
        } else {
            specs.push_back(InputSpec{arg, "auto"});
        }
    }
    if (specs.empty()) usage("no input");
    if (check && index) usage("--check compares every term with the host's; with --index they stay on the device");
    try {
        const auto files = expand_inputs(specs, [](std::string_view path) { return detect_format(path); });
        const bench::Corpus corpus = bench::load(files, settings);
        std::vector<GpuAnalysisInput> batches = batches_of(corpus, settings, batch_bytes);
        const std::vector<uint8_t> every_collection(kCollections, 1);
        std::unique_ptr<GpuTermIndexer> indexer;
        if (index) {
            for (GpuAnalysisInput& batch : batches) batch.keep_on_device = every_collection.data();
            GpuTermIndexerOptions options;
            options.positional = settings.positions;
            indexer = create_gpu_term_indexer(options);
        }
        uint64_t sequence = 0, docid = 0;
        const auto analyze = [&](GpuBatchAnalyzer& analyzer, const GpuAnalysisInput& batch) {
            GpuAnalysisResult result = analyzer.analyze(batch);
            if (indexer) index_resident(*indexer, result, sequence++, docid);
            docid += batch.documents();
            return result;
        };
        std::printf("%zu records, %.1f MB of record text, %zu batches of up to %zu bytes; median of %u passes\n",
                    corpus.records.size(), corpus.text.size() / 1e6, batches.size(), batch_bytes, passes);
        auto analyzer = create_gpu_batch_analyzer(0);
        size_t differing = 0;
        for (const GpuAnalysisInput& batch : batches) {  // warm-up: arrays grow to the largest batch
            GpuAnalysisResult result = analyze(*analyzer, batch);
            if (check && !same_analysis_result(result, analyze_batch_on_host(batch))) ++differing;
        }
        if (indexer) indexer->close_run();
        if (check) std::printf("check against the host reference: %zu of %zu batches differ\n", differing, batches.size());
        struct Run {
            double wall = 0;
            GpuAnalyzerTimes times;
            double index_seconds = 0;  // the indexer's device time (chunks and the run's sort)
        };
        std::vector<Run> runs;
        for (unsigned p = 0; p < passes; ++p) {
            const GpuAnalyzerTimes before = analyzer->times();
            const double index_before = indexer ? indexer->stats().device_busy_seconds : 0;
            const auto start = std::chrono::steady_clock::now();
            for (const GpuAnalysisInput& batch : batches) analyze(*analyzer, batch);
            if (indexer) indexer->close_run();
            const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            runs.push_back(Run{wall, GpuAnalyzerTimes(analyzer->times()).add(before, -1),
                               indexer ? indexer->stats().device_busy_seconds - index_before : 0});
        }
        std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.wall < b.wall; });
        const double wall = runs[runs.size() / 2].wall;
        const GpuAnalyzerTimes& t = runs[runs.size() / 2].times;
        const double index_seconds = runs[runs.size() / 2].index_seconds;
        const double mb = corpus.text.size() / 1e6;
        std::printf("%-28s %10s %8s\n", "part", "seconds", "MB/s");
        const auto row = [&](const char* name, double seconds) {
            std::printf("%-28s %10.4f %8.0f\n", name, seconds, seconds > 0 ? mb / seconds : 0.0);
        };
        row("wall (one thread)", wall);
        row("device: copies in", t.upload_seconds);
        row("device: pass 1", t.pass1_seconds);
        row("  markup (steps 1-3)", t.pass1_markup_seconds);
        row("    candidates, their ends", t.pass1_candidates_seconds);
        row("    walk per document", t.pass1_walk_seconds);
        row("  token starts (4-5)", t.pass1_tokens_seconds);
        row("  terms (6)", t.pass1_terms_seconds);
        row("device: pass 2", t.pass2_seconds);
        row("device: copies out", t.download_seconds);
        row("host: packing", t.pack_seconds);
        if (indexer) {
            row("device: indexing", index_seconds);
            // The split and what still comes back (term bytes, counts) are in "copies out".
            row("device chain: 1+2+out+index", t.pass1_seconds + t.pass2_seconds + t.download_seconds + index_seconds);
            std::printf("terms kept on the device: %llu, brought back: %llu, batches without a free buffer: %llu; "
                        "dictionary: %llu terms\n",
                        static_cast<unsigned long long>(t.resident_terms),
                        static_cast<unsigned long long>(t.downloaded_terms),
                        static_cast<unsigned long long>(t.resident_unavailable),
                        static_cast<unsigned long long>(indexer->terms()));
        }
        return differing == 0 ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "invidx_gpu_parse_bench: " << e.what() << "\n";
        return 1;
    }
}
