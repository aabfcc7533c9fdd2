// The document store's lookup latency: a random docid's text and metadata
// (DocumentStoreReader::document), one call at a time, on an index built
// with "store": {"documents": true}. Prints the median and p99 in
// microseconds, and the store's size against the text it holds.
//
//   invidx_document_store_bench IDX [LOOKUPS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <vector>

#include "store/document_store_layout.hpp"
#include "store/document_store_reader.hpp"

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s IDX [LOOKUPS]\n", argv[0]);
        return 2;
    }
    const size_t lookups = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 10000;
    const invidx::IndexReader index(argv[1]);
    const invidx::DocumentStoreReader store(index);
    if (!store.present() || store.documents() == 0) {
        std::fprintf(stderr, "%s has no document store (build with \"store\": {\"documents\": true})\n", argv[1]);
        return 1;
    }
    std::mt19937_64 random(42);
    std::uniform_int_distribution<uint64_t> docid(0, store.documents() - 1);
    std::vector<double> micros;
    micros.reserve(lookups);
    uint64_t text_bytes = 0;
    for (size_t i = 0; i < lookups; ++i) {
        const uint64_t d = docid(random);
        const auto start = std::chrono::steady_clock::now();
        const invidx::StoredDocument document = store.document(d);
        micros.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
        text_bytes += document.text.size();
    }
    std::sort(micros.begin(), micros.end());
    const auto at = [&](double q) { return micros[std::min(micros.size() - 1, static_cast<size_t>(q * micros.size()))]; };
    const auto store_bytes = std::filesystem::file_size(std::filesystem::path(argv[1]) / invidx::layout::kDocumentTextFile);
    std::printf("| documents | blocks | store MB | lookups | median us | p99 us | mean text bytes |\n");
    std::printf("|---|---|---|---|---|---|---|\n");
    std::printf("| %llu | %llu | %.1f | %zu | %.1f | %.1f | %.0f |\n", static_cast<unsigned long long>(store.documents()),
                static_cast<unsigned long long>(store.blocks()), store_bytes / 1e6, lookups, at(0.5), at(0.99),
                static_cast<double>(text_bytes) / static_cast<double>(lookups));
    return 0;
}
