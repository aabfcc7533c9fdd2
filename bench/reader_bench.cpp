// invidx_reader_bench: the cost of IndexReader's per-record reads, which
// search results (a name per hit), the cluster documents join and
// weighting (a df per term, a length per document) call in loops:
// nanoseconds per call of document(), document_length(), term(), and of
// term_dfs() and document_lengths() per element, each over every record of
// IDX, the median of --repeat passes, on one thread (term_dfs and
// document_lengths run on every thread oneTBB may use, as they do in use).
//
//   invidx_reader_bench IDX [--repeat R]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "store/index_reader.hpp"

using namespace invidx;

namespace {

template <class Pass>
double median_ns(unsigned repeat, uint64_t calls, Pass pass) {
    std::vector<double> ns;
    for (unsigned r = 0; r < repeat; ++r) {
        const auto start = std::chrono::steady_clock::now();
        pass();
        ns.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() /
                     static_cast<double>(std::max<uint64_t>(calls, 1)));
    }
    std::sort(ns.begin(), ns.end());
    return ns[ns.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: invidx_reader_bench IDX [--repeat R]\n");
        return 2;
    }
    unsigned repeat = 5;
    if (argc == 4 && std::string(argv[2]) == "--repeat") repeat = static_cast<unsigned>(std::max(1, std::atoi(argv[3])));
    try {
        const IndexReader index(argv[1]);
        const uint64_t documents = index.num_documents(), terms = index.term_count();
        uint64_t sink = 0;
        std::printf("index %s: %llu documents, %llu terms; median of %u passes\n\n", argv[1],
                    static_cast<unsigned long long>(documents), static_cast<unsigned long long>(terms), repeat);
        std::printf("| read | calls a pass | ns per record |\n|---|---:|---:|\n");
        const auto row = [&](const char* what, uint64_t calls, double ns) {
            std::printf("| %s | %llu | %.1f |\n", what, static_cast<unsigned long long>(calls), ns);
        };
        row("document(docid)", documents, median_ns(repeat, documents, [&] {
                for (uint32_t d = 0; d < documents; ++d) sink += index.document(d).name.size();
            }));
        row("document_length(docid)", documents, median_ns(repeat, documents, [&] {
                for (uint32_t d = 0; d < documents; ++d) sink += index.document_length(d);
            }));
        row("term(t)", terms, median_ns(repeat, terms, [&] {
                for (uint64_t t = 0; t < terms; ++t) sink += index.term(t).df;
            }));
        row("term_dfs(), per term", terms, median_ns(repeat, terms, [&] { sink += index.term_dfs().size(); }));
        row("document_lengths(), per document", documents,
            median_ns(repeat, documents, [&] { sink += index.document_lengths().size(); }));
        std::fprintf(stderr, "(checksum %llu)\n", static_cast<unsigned long long>(sink));
        return 0;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "invidx_reader_bench: %s\n", error.what());
        return 1;
    }
}
