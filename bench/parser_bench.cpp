// invidx_parser_bench: the Analyzer alone (CONTENT.md §3-7: HTML rules, tokens,
// stop words, Porter stems, the per-document term table), one thread, on
// records decompressed and framed in memory first, so that only parsing is
// timed. Every way the analyzer can find tokens is measured: the scalar
// reference and, in a build with Highway, the vector path on each instruction
// set this CPU supports. All of them must give the same terms (a digest
// checks it), so the bench also catches a wrong vector path.
//
//   invidx_parser_bench [--passes P] [--path NAME] [--positions] INPUT...
//
// --path measures one path only: "scalar" or a target name ("AVX2", ...),
// for profiles. --positions analyzes as a positional index does.
// INPUT: files or directories (walked like invidx-run --input). Prints one
// row per path: MB (10^6 bytes of record text) per second of the thread's
// CPU time (so that other work on the machine does not count), the median of
// P passes (default 5), and the digest of the terms.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "invidx/error.hpp"
#include "analysis/analyzer.hpp"
#include "bench_corpus.hpp"
#include "nodes/read/input_files.hpp"

namespace {

using namespace invidx;
using bench::Corpus;
using bench::Record;

struct Pass {
    double seconds = 0;
    uint64_t digest = 0;
};

// CPU time of this thread: the machine may be shared, and MB/s per core is
// what the parse node's cost is measured in.
double thread_seconds() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

Pass run_pass(const Corpus& corpus, Analyzer& analyzer, DocumentTerms& terms) {
    Pass pass;
    const double start = thread_seconds();
    for (const Record& record : corpus.records) {
        analyzer.analyze(std::string_view(corpus.text).substr(record.offset, record.length), record.html, terms);
        // Order-independent over terms, order-dependent over positions.
        uint64_t h = terms.length ^ (terms.tokens << 32);
        for (const auto& term : terms.terms) {
            uint64_t t = term.tf ^ (uint64_t{term.collection} << 32);
            for (unsigned char c : terms.term(term)) t = (t ^ c) * 0x100000001b3ull;
            for (uint32_t i = 0; i < (analyzer.settings().positions ? term.tf : 0); ++i) {
                t = (t ^ terms.positions[term.first_position_index + i]) * 0x100000001b3ull;
            }
            h += t * 0x9E3779B97F4A7C15ull;
        }
        pass.digest = (pass.digest ^ h) * 0x100000001b3ull;
    }
    pass.seconds = thread_seconds() - start;
    return pass;
}

struct Row {
    std::string path;
    double mb_per_s = 0;
    uint64_t digest = 0;
};

Row measure(const std::string& name, const Corpus& corpus, const AnalysisSettings& settings, TokenScan scan,
            unsigned passes) {
    Analyzer analyzer(settings, scan);
    DocumentTerms terms;
    run_pass(corpus, analyzer, terms);  // warm the stem cache and the tables
    std::vector<double> seconds;
    uint64_t digest = 0;
    for (unsigned p = 0; p < passes; ++p) {
        const Pass pass = run_pass(corpus, analyzer, terms);
        ensure(p == 0 || pass.digest == digest, name + ": terms differ between passes");
        digest = pass.digest;
        seconds.push_back(pass.seconds);
    }
    std::sort(seconds.begin(), seconds.end());
    return Row{name, corpus.text.size() / 1e6 / seconds[seconds.size() / 2], digest};
}

[[noreturn]] void usage(const char* why) {
    if (why) std::cerr << "invidx_parser_bench: " << why << "\n";
    std::cerr << "usage: invidx_parser_bench [--passes P] [--path NAME] [--positions] INPUT...\n";
    std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
    unsigned passes = 5;
    std::string only;  // --path NAME: that path only (profiles)
    AnalysisSettings settings = AnalysisSettings::defaults();
    std::vector<InputSpec> specs;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--passes") {
            if (i + 1 >= argc) usage("missing value");
            const long value = std::strtol(argv[++i], nullptr, 10);
            if (value < 1) usage("--passes must be at least 1");
            passes = static_cast<unsigned>(value);
        } else if (arg == "--path") {
            if (i + 1 >= argc) usage("missing value");
            only = argv[++i];
        } else if (arg == "--positions") {
            settings.positions = true;
        } else if (arg == "-h" || arg == "--help") {
            usage(nullptr);
        } else {
            specs.push_back(InputSpec{arg, "auto"});
        }
    }
    if (specs.empty()) usage("no input");
    try {
        const auto files = expand_inputs(specs, [](std::string_view path) { return detect_format(path); });
        const Corpus corpus = bench::load(files, settings);
        std::printf("%zu files, %zu records, %.1f MB of record text; median of %u passes, 1 thread\n",
                    files.size(), corpus.records.size(), corpus.text.size() / 1e6, passes);
        std::vector<Row> rows;
        if (only.empty() || only == "scalar") {
            rows.push_back(measure("scalar", corpus, settings, TokenScan::scalar, passes));
        }
        for (const ScanTarget& target : vector_scan_targets()) {
            if (!only.empty() && only != target.name) continue;
            use_vector_scan_target(target.id);
            rows.push_back(measure("vector " + target.name, corpus, settings, TokenScan::vector, passes));
        }
        ensure(!rows.empty(), "--path " + only + ": no such path here");
        use_vector_scan_target(0);
        std::printf("%-16s %10s %18s\n", "path", "MB/s", "terms digest");
        for (const Row& row : rows) {
            std::printf("%-16s %10.1f %18llx\n", row.path.c_str(), row.mb_per_s,
                        static_cast<unsigned long long>(row.digest));
        }
        for (const Row& row : rows) ensure(row.digest == rows.front().digest, row.path + ": terms differ from scalar");
    } catch (const std::exception& e) {
        std::cerr << "invidx_parser_bench: " << e.what() << "\n";
        return 1;
    }
}
