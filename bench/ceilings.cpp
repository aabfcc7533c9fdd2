// invidx_ceilings: how fast each stage of the parse side could go on its own,
// on the same files, without the flow graph. Every stage is
// measured with all the stages before it, so the difference between two rows
// is the cost of the later stage:
//   read        the files' bytes, 4 MiB at a time (from the page cache: one
//               untimed pass reads them first)
//   libarchive  + decompress_file (libarchive), the general decoder
//   zlib        + GzipStream for plain gzip (gzip_direct: streams by ISA-L's
//               igzip and whole members by libdeflate when built with them,
//               zlib for the rest; INVIDX_GZIP_DECODER narrows it),
//               libarchive for other files: what the decompress node does.
//               Each decoder alone, by file shape: invidx_inflate_bench
//   frame       + make_framer (CONTENT.md §1-2)
//   tokenize    + the HTML rules and tokens (CONTENT.md §3-4) as the Analyzer
//               finds them: the vector TokenScanner when built with
//               Highway, else strip_html + tokenize
//   analyze     + stop words, Porter stem, per-document term table: the
//               full Analyzer (CONTENT.md §3-7), what the parse node runs
// Throughput is always in MB (10^6 bytes) of uncompressed text per second,
// so rows compare; the best of --repeat runs is kept.
//
//   invidx_ceilings [--threads N] [--repeat R] [--stage NAME] INPUT...
//
// INPUT: files or directories (walked like invidx-run --input). --threads
// defaults to the hardware threads, --repeat to 3; --stage measures one row
// only (its +ns/B column is then its whole cost), for profiles and
// before/after comparisons.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "invidx/entry_name.hpp"
#include "invidx/error.hpp"
#include "analysis/analyzer.hpp"
#include "analysis/html.hpp"
#include "analysis/token_scan.hpp"
#include "analysis/tokenize.hpp"
#include "nodes/decompress/decompress_file.hpp"
#include "nodes/decompress/gzip_stream.hpp"
#include "nodes/frame/framer.hpp"
#include "nodes/read/input_files.hpp"
#include "tools/common/flags.hpp"

namespace {

using namespace invidx;

enum class Stage { read, libarchive, zlib, frame, tokenize, analyze };

struct StageInfo {
    Stage stage;
    const char* name;
    const char* what;
};

constexpr StageInfo kStages[] = {
    {Stage::read, "read", "read the files"},
    {Stage::libarchive, "libarchive", "+ decompress (libarchive)"},
    {Stage::zlib, "zlib", "+ decompress (GzipStream: igzip/libdeflate/zlib)"},
    {Stage::frame, "frame", "+ frame records"},
    {Stage::tokenize, "tokenize", "+ HTML rules + tokens"},
    {Stage::analyze, "analyze", "+ stopwords + stem (Analyzer)"},
};

constexpr size_t kReadBlockBytes = size_t{4} << 20;

// Per-thread state, reused across files.
struct Worker {
    explicit Worker(const AnalysisSettings& settings) : settings(settings), analyzer(settings) {}
    AnalysisSettings settings;
    Analyzer analyzer;
    DocumentTerms terms;
    std::string html;
    TokenScanner scanner;  // the tokenize stage's vector scan
    std::vector<char> buffer, next;  // read blocks
    uint64_t text_bytes = 0;  // uncompressed bytes seen (decompress stages and later)
    uint64_t sink = 0;        // keeps the work observable
    uint64_t digest = 0;      // of the analyze stage's terms, this run
};

// Reads `file` in blocks; `on_block(bytes, first, last)`.
void read_blocks(const InputFile& file, std::vector<char>& buffer, std::vector<char>& next,
                 const std::function<void(std::string_view, bool, bool)>& on_block) {
    std::FILE* f = std::fopen(file.path.c_str(), "rb");
    ensure(f != nullptr, "cannot open " + file.path);
    buffer.resize(kReadBlockBytes);
    next.resize(kReadBlockBytes);
    bool first = true;
    size_t got = std::fread(buffer.data(), 1, buffer.size(), f);
    for (;;) {
        // Read ahead one block to know whether this one is the last.
        const size_t next_got = got == buffer.size() ? std::fread(next.data(), 1, next.size(), f) : 0;
        const bool last = next_got == 0;
        on_block(std::string_view(buffer.data(), got), first, last);
        if (last) break;
        first = false;
        buffer.swap(next);
        got = next_got;
    }
    std::fclose(f);
}

void run_file(const InputFile& file, Stage stage, Worker& w) {
    if (stage == Stage::read) {
        read_blocks(file, w.buffer, w.next, [&](std::string_view bytes, bool, bool) {
            w.text_bytes += bytes.size();
            if (!bytes.empty()) w.sink += static_cast<unsigned char>(bytes[bytes.size() / 2]);
        });
        return;
    }

    std::unique_ptr<Framer> framer;
    const EmitRecord on_record = [&](const FramedRecord& record) {
        if (stage == Stage::frame) {
            w.sink += record.text.size();
        } else if (stage == Stage::tokenize) {
            if (vector_scan_built()) {
                w.scanner.scan(record.text, record.html);
                for (const TokenSpan& span : w.scanner) w.sink += span.length;
                return;
            }
            std::string_view text = record.text;
            if (record.html) {
                w.html.clear();
                strip_html(text, w.html);
                text = w.html;
            }
            tokenize(text, [&](std::string_view token) { w.sink += token.size(); });
        } else {
            w.analyzer.analyze(record.text, record.html, w.terms);
            // An order-independent digest of the terms, to compare builds.
            uint64_t h = w.terms.length;
            for (const auto& term : w.terms.terms) {
                for (unsigned char c : w.terms.term(term)) h = (h ^ c) * 0x100000001b3ull;
                h = (h ^ term.tf ^ (uint64_t{term.collection} << 32)) * 0x9E3779B97F4A7C15ull;
            }
            w.digest += h;
        }
    };
    const auto on_text = [&](TextBlock&& block) {
        w.text_bytes += block.bytes.size();
        if (stage == Stage::libarchive || stage == Stage::zlib) return true;
        if (block.entry_begin) {
            framer = make_framer(file.format, document_name_of_entry(file, block.entry_name), w.settings);
        }
        if (framer) {
            framer->feed(block.bytes, on_record);
            if (block.entry_end) {
                framer->finish(on_record);
                framer.reset();
            }
        }
        return true;
    };

    if (stage == Stage::libarchive) {
        decompress_file(file, kDefaultTextBlockBytes, on_text);
        return;
    }
    // What the decompress node does: zlib for plain gzip, libarchive otherwise.
    std::optional<GzipStream> gzip;
    bool use_libarchive = false;
    read_blocks(file, w.buffer, w.next, [&](std::string_view bytes, bool first, bool last) {
        if (first) {
            if (gzip_direct(bytes, last)) {
                gzip.emplace(file, kDefaultTextBlockBytes);
            } else {
                use_libarchive = true;
            }
        }
        if (gzip) gzip->feed(bytes, last, [&](TextBlock&& block) { on_text(std::move(block)); });
    });
    if (use_libarchive) decompress_file(file, kDefaultTextBlockBytes, on_text);
}

struct Result {
    double seconds = 0;
    uint64_t text_bytes = 0;
    uint64_t digest = 0;  // analyze stage: the same for every thread count and build
};

// Runs `stage` over all files on `threads` threads (files taken in turn).
Result run_stage(const std::vector<InputFile>& files, Stage stage, unsigned threads,
                 const AnalysisSettings& settings, std::vector<std::unique_ptr<Worker>>& workers) {
    while (workers.size() < threads) workers.push_back(std::make_unique<Worker>(settings));
    for (auto& w : workers) w->text_bytes = w->digest = 0;
    std::atomic<size_t> next{0};
    std::vector<std::exception_ptr> errors(threads);
    const auto start = std::chrono::steady_clock::now();
    const auto work = [&](unsigned t) {
        try {
            for (size_t i; (i = next.fetch_add(1)) < files.size();) run_file(files[i], stage, *workers[t]);
        } catch (...) {
            errors[t] = std::current_exception();
        }
    };
    if (threads == 1) {
        work(0);
    } else {
        std::vector<std::thread> pool;
        for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work, t);
        for (auto& thread : pool) thread.join();
    }
    const auto stop = std::chrono::steady_clock::now();
    for (auto& error : errors) {
        if (error) std::rethrow_exception(error);
    }
    Result result;
    result.seconds = std::chrono::duration<double>(stop - start).count();
    for (unsigned t = 0; t < threads; ++t) {
        result.text_bytes += workers[t]->text_bytes;
        result.digest += workers[t]->digest;
    }
    return result;
}

tools::Flags bench_flags() {
    tools::Flags flags;
    flags.add({.name = "--threads", .value_name = "N", .help = "threads of the second column (default the hardware threads)"});
    flags.add({.name = "--repeat", .value_name = "R", .help = "runs per row; the best counts (default 3)"});
    flags.add({.name = "--stage", .value_name = "NAME", .help = "measure this row only: read, libarchive, zlib, frame,\ntokenize or analyze"});
    flags.add({.name = "--help", .help = "this help", .alias = "-h", .stops_parsing = true});
    return flags;
}

std::string bench_help(const tools::Flags& flags) {
    return flags.help({.usage = "usage: invidx_ceilings [--threads N] [--repeat R] [--stage NAME] INPUT...",
                       .description = "How fast each stage of the parse side could go on its own, on the files or\n"
                                      "directories INPUT, without the flow graph.",
                       .options_heading = "Options:\n",
                       .example = "  invidx_ceilings sample/debian-docs.warc.gz --repeat 5\n",
                       .footer = "Exit codes: 0 done; 1 failed; 2 bad command line.\n"});
}

}  // namespace

int main(int argc, char** argv) {
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    unsigned repeat = 3;
    std::string only;  // --stage NAME: measure that row only (profiling, before/after)
    std::vector<InputSpec> specs;
    const tools::Flags flags = bench_flags();
    try {
        const tools::ParsedFlags given = flags.parse(std::vector<std::string>(argv + 1, argv + argc));
        if (given.has("--help")) {
            std::cout << bench_help(flags);
            return 0;
        }
        if (auto value = given.value("--threads")) threads = static_cast<unsigned>(tools::positive_integer("--threads", *value));
        if (auto value = given.value("--repeat")) repeat = static_cast<unsigned>(tools::positive_integer("--repeat", *value));
        if (auto value = given.value("--stage")) {
            only = *value;
            if (std::none_of(std::begin(kStages), std::end(kStages), [&](const StageInfo& s) { return only == s.name; })) {
                throw tools::UsageError("--stage: read, libarchive, zlib, frame, tokenize or analyze");
            }
        }
        for (const auto& input : given.arguments()) specs.push_back(InputSpec{input, "auto"});
        if (specs.empty()) throw tools::UsageError("no input");
    } catch (const tools::UsageError& error) {
        tools::exit_with_usage_error("invidx_ceilings", error.what());
    }

    try {
        const std::vector<InputFile> files = expand_inputs(specs, [](std::string_view path) {
            return detect_format(path);
        });
        const AnalysisSettings settings = AnalysisSettings::defaults();
        std::vector<std::unique_ptr<Worker>> workers;
        uint64_t compressed = 0;
        for (const auto& f : files) compressed += f.size_bytes;

        // Warm the page cache, and learn the uncompressed size.
        run_stage(files, Stage::read, 1, settings, workers);
        const uint64_t text_bytes = run_stage(files, Stage::libarchive, 1, settings, workers).text_bytes;
        std::printf("%zu files, %.1f MB on disk, %.1f MB uncompressed; best of %u, 1 and %u threads\n",
                    files.size(), compressed / 1e6, text_bytes / 1e6, repeat, threads);

        const unsigned thread_counts[2] = {1, threads};
        double best[std::size(kStages)][2];
        uint64_t digest = 0;
        for (size_t s = 0; s < std::size(kStages); ++s) {
            for (int k = 0; k < 2; ++k) {
                best[s][k] = 1e300;
                if (!only.empty() && only != kStages[s].name) continue;
                for (unsigned r = 0; r < repeat; ++r) {
                    const Result result = run_stage(files, kStages[s].stage, thread_counts[k], settings, workers);
                    best[s][k] = std::min(best[s][k], result.seconds);
                    if (kStages[s].stage == Stage::analyze) {
                        ensure(digest == 0 || digest == result.digest, "analyze digest differs between runs");
                        digest = result.digest;
                    }
                }
                if (k == 1 && threads == 1) {
                    best[s][1] = best[s][0];
                    continue;
                }
                std::fprintf(stderr, "  %-10s %u thread(s): %.3f s\n", kStages[s].name, thread_counts[k],
                             best[s][k]);
            }
        }

        // Incremental cost: over the row before, except that frame builds on
        // the zlib row (the pipeline's decoder) and zlib on read.
        std::printf("\n%-10s  %-30s  %10s  %10s  %10s  %10s\n", "stage", "", "MB/s 1T", "MB/s NT", "ns/B 1T",
                    "+ns/B 1T");
        std::printf("%-10s  %-30s  %10s  %10s  %10s  %10s\n", "", "", "", ("(N=" + std::to_string(threads) + ")").c_str(),
                    "", "");
        for (size_t s = 0; s < std::size(kStages); ++s) {
            if (!only.empty() && only != kStages[s].name) continue;
            const double ns_per_byte = best[s][0] * 1e9 / static_cast<double>(text_bytes);
            size_t base = s == 0 ? s : s - 1;
            if (kStages[s].stage == Stage::zlib) base = 0;
            const double base_ns = s == 0 || !only.empty() ? 0 : best[base][0] * 1e9 / static_cast<double>(text_bytes);
            std::printf("%-10s  %-30s  %10.1f  %10.1f  %10.3f  %10.3f\n", kStages[s].name, kStages[s].what,
                        text_bytes / 1e6 / best[s][0], text_bytes / 1e6 / best[s][1], ns_per_byte,
                        ns_per_byte - base_ns);
        }
        uint64_t sink = 0;
        for (auto& w : workers) sink += w->sink;
        if (sink == 42) std::printf(" ");  // the sink must look used
        if (digest != 0) std::printf("analyze digest %016llx\n", static_cast<unsigned long long>(digest));
    } catch (const std::exception& error) {
        std::cerr << "invidx_ceilings: " << error.what() << "\n";
        return 1;
    }
    return 0;
}
