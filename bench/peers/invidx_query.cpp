// BENCHMARK-ONLY peer-comparison driver: query latency of invidx on
// a query file, measured exactly as bench/peers/xapian_query.cpp and
// LuceneQuery.java measure theirs. Not part of the product; not built by the
// main CMakeLists.txt. Build with bench/peers/build.sh invidx (needs a built
// ./build: it links build/libinvidx.a with the libraries of
// invidx_query_bench's link line).
//
//   invidx_query IDX QUERIES.tsv [--mode and|or] [--k K] [--repeat R] [--warmup W]
//
// QUERIES.tsv: one `qid<TAB>text` a line (what invidx_query_bench
// --write-queries writes). One thread (oneTBB limited to 1). The whole query
// set runs W times untimed (default 1), then each query R times (default 5);
// a query's latency is the median of its R runs: Searcher::search(text) =
// analysis, dictionary lookup, evaluation (the query layout when IDX has one:
// block skipping, block-max MaxScore for OR; docs/QUERY.md). BM25 k1 0.9,
// b 0.4 (CONTENT.md §10).
//
// Prints a `# ...` header, then one line per query:
//   qid<TAB>microseconds<TAB>results<TAB>top document names, comma-separated

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <oneapi/tbb/global_control.h>

#include "analysis/analyzer.hpp"
#include "query/searcher.hpp"
#include "store/index_reader.hpp"

namespace {

[[noreturn]] void usage(const char* why) {
    if (why) std::cerr << "invidx_query: " << why << "\n";
    std::cerr << "usage: invidx_query IDX QUERIES.tsv [--mode and|or] [--k K] [--repeat R] [--warmup W]\n"
                 "benchmark-only driver (bench/peers); see the comment at the top of the source\n";
    std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
    using namespace invidx;
    std::vector<std::string> positional;
    std::string mode = "or";
    size_t k = 10;
    int repeat = 5, warmup = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(("missing value after " + arg).c_str());
            return argv[++i];
        };
        if (arg == "--mode") mode = value();
        else if (arg == "--k") k = std::strtoull(value().c_str(), nullptr, 10);
        else if (arg == "--repeat") repeat = std::atoi(value().c_str());
        else if (arg == "--warmup") warmup = std::atoi(value().c_str());
        else if (arg.starts_with("--")) usage(("unknown option " + arg).c_str());
        else positional.push_back(arg);
    }
    if (positional.size() != 2) usage("need IDX and QUERIES.tsv");
    if (mode != "and" && mode != "or") usage("--mode is and or or");
    if (k < 1 || repeat < 1 || warmup < 0) usage("--k and --repeat must be at least 1");
    try {
        std::vector<std::string> qids, texts;
        std::ifstream in(positional[1]);
        if (!in) usage(("cannot read " + positional[1]).c_str());
        for (std::string line; std::getline(in, line);) {
            if (!line.empty() && line.back() == '\r') line.pop_back();
            const size_t tab = line.find('\t');
            if (line.empty() || tab == std::string::npos) continue;
            qids.push_back(line.substr(0, tab));
            texts.push_back(line.substr(tab + 1));
        }

        const IndexReader index(positional[0]);
        const Searcher searcher(index);
        const oneapi::tbb::global_control one_thread(oneapi::tbb::global_control::max_allowed_parallelism, 1);
        Analyzer analyzer(index.analysis());
        const SearchOptions options{.k = k, .mode = mode == "and" ? QueryMode::kAnd : QueryMode::kOr};

        std::vector<std::vector<ScoredDocument>> hits(texts.size());
        for (int w = 0; w < warmup; ++w) {
            for (size_t q = 0; q < texts.size(); ++q) hits[q] = searcher.search(texts[q], options, analyzer).hits;
        }
        std::vector<std::vector<double>> runs(texts.size());
        for (int r = 0; r < repeat; ++r) {
            for (size_t q = 0; q < texts.size(); ++q) {
                const auto start = std::chrono::steady_clock::now();
                const auto result = searcher.search(texts[q], options, analyzer);
                const auto stop = std::chrono::steady_clock::now();
                if (result.hits.size() != hits[q].size() && warmup > 0) {
                    std::cerr << "invidx_query: query " << qids[q] << " changed its results\n";
                    return 1;
                }
                hits[q] = result.hits;
                runs[q].push_back(std::chrono::duration<double, std::micro>(stop - start).count());
            }
        }
        std::printf("# system: invidx (query layout: %s), %s, k %zu, BM25 k1 0.9 b 0.4, 1 thread, "
                    "warmup %d, median of %d; %llu documents\n",
                    searcher.query_postings() ? "yes" : "no", mode.c_str(), k, warmup, repeat,
                    static_cast<unsigned long long>(index.num_documents()));
        for (size_t q = 0; q < texts.size(); ++q) {
            auto& times = runs[q];
            std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(times.size() / 2), times.end());
            std::string names;
            for (const auto& hit : hits[q]) names += (names.empty() ? "" : ",") + index.document(hit.docid).name;
            std::printf("%s\t%.2f\t%zu\t%s\n", qids[q].c_str(), times[times.size() / 2], hits[q].size(), names.c_str());
        }
        return 0;
    } catch (const std::exception& error) {
        std::cerr << "invidx_query: " << error.what() << "\n";
        return 1;
    }
}
