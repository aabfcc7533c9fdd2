// Time to open an index and answer a first term lookup, as an index grows.
//   invidx_open_bench make DIR GB     a synthetic index of about GB gigabytes,
//                                     written by IndexWriter (Zipf-like dfs)
//   invidx_open_bench open DIR [--cold]  opens DIR, decodes one mid-frequency
//                                     term; prints one JSON line. --cold first
//                                     drops DIR's files from the page cache
//                                     (posix_fadvise DONTNEED: no root needed).
// INVIDX_VERIFY_ALL_AT_OPEN=1 gives the reader's whole-file verification at
// open, as before block checksums (bench/open_bench.sh runs both).
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "store/index_reader.hpp"
#include "store/index_writer.hpp"
#include "store/run_list.hpp"

namespace fs = std::filesystem;
using namespace invidx;

namespace {

constexpr uint32_t kTerms = 200000;
constexpr uint64_t kPostingsPerRun = 16'000'000;  // about 40 MB of list bytes a run

std::string term_name(uint32_t t) {
    char name[16];
    std::snprintf(name, sizeof name, "t%07u", t);
    return name;
}

void make(const fs::path& dir, double gigabytes) {
    // About 2.5 bytes a posting (vbyte gap + tf) and 40 bytes a document.
    const uint64_t postings = static_cast<uint64_t>(gigabytes * 1e9 / 2.6);
    const uint32_t runs = static_cast<uint32_t>(std::max<uint64_t>(1, postings / kPostingsPerRun));
    const uint32_t documents = static_cast<uint32_t>(std::min<uint64_t>(postings / 40, 20'000'000));
    const uint32_t per_run = documents / runs;
    double harmonic = 0;
    for (uint32_t t = 0; t < kTerms; ++t) harmonic += 1.0 / (t + 1);
    AnalysisSettings analysis;
    IndexWriter writer(dir, analysis, {InputFile{.ordinal = 0, .path = "synthetic", .name = "synthetic", .format = "text", .size_bytes = 0}});
    std::vector<DictionaryTerm> dictionary(kTerms);
    for (uint32_t t = 0; t < kTerms; ++t) {
        dictionary[t].term = term_name(t);
        dictionary[t].collection = t % 18600;
    }
    for (uint32_t run = 0; run < runs; ++run) {
        const uint32_t first = run * per_run;
        CompressedRun part;
        part.run = run;
        part.indexer_count = 1;
        part.end_of_input = run + 1 == runs;
        TermRunList list;
        for (uint32_t t = 0; t < kTerms; ++t) {
            const uint64_t df = std::min<uint64_t>(per_run, static_cast<uint64_t>(double(kPostingsPerRun) / (t + 1) / harmonic) + 1);
            list.slot = t;
            list.docids.resize(df);
            list.tfs.resize(df);
            for (uint64_t i = 0; i < df; ++i) {
                list.docids[i] = first + static_cast<uint32_t>(i * per_run / df + (t % 7) * (per_run / df > 7));
                list.tfs[i] = 1 + static_cast<uint32_t>((i + t) % 3);
            }
            part.list_offsets.push_back(part.bytes.size());
            part.list_counts.push_back(static_cast<uint32_t>(df));
            part.postings += df;
            run_list::encode(list, false, part.bytes);
            dictionary[t].df += df;
            for (const uint32_t tf : list.tfs) dictionary[t].cf += tf;
            dictionary[t].lists.push_back(PartialListRef{.run = run, .indexer = 0, .slot = t});
        }
        part.list_offsets.push_back(part.bytes.size());
        writer.write_run(run, {std::move(part)});
    }
    std::vector<ParsedDoc> batch;
    for (uint32_t docid = 0; docid < per_run * runs; ++docid) {
        batch.push_back(ParsedDoc{.name = "doc-" + std::to_string(docid), .length = 100, .file_ordinal = 0, .source_offset = 4096ull * docid});
        if (batch.size() == 65536) {
            writer.append_documents(batch);
            batch.clear();
        }
    }
    writer.append_documents(batch);
    writer.write_dictionary(std::move(dictionary));
    writer.publish();
}

void drop_from_cache(const fs::path& dir) {
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
        if (!entry.is_regular_file()) continue;
        const int fd = ::open(entry.path().c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        ::fdatasync(fd);
        ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        ::close(fd);
    }
}

int open_and_query(const fs::path& dir, bool cold) {
    if (cold) drop_from_cache(dir);
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    const IndexReader index(dir);
    const auto opened = clock::now();
    const auto term = index.find_term(term_name(5000));  // df of a few thousand per GB
    const auto list = index.postings(term.value());
    const auto answered = clock::now();
    uint64_t bytes = 0;
    for (const auto& file : index.manifest().files) bytes += file.size_bytes;
    const auto seconds = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
    std::printf("{\"index_bytes\": %llu, \"lazy\": %s, \"cold\": %s, \"open_s\": %.6f, \"first_query_s\": %.6f, "
                "\"postings\": %zu, \"bytes_verified\": %llu}\n",
                static_cast<unsigned long long>(bytes), index.verifies_lazily() ? "true" : "false", cold ? "true" : "false",
                seconds(start, opened), seconds(opened, answered), list.docids.size(),
                static_cast<unsigned long long>(index.bytes_verified()));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::string command = argc > 2 ? argv[1] : "";
        if (command == "make" && argc == 4) {
            make(argv[2], std::atof(argv[3]));
            return 0;
        }
        if (command == "open" && (argc == 3 || (argc == 4 && std::string(argv[3]) == "--cold"))) {
            return open_and_query(argv[2], argc == 4);
        }
        std::fprintf(stderr, "usage: invidx_open_bench make DIR GB | open DIR [--cold]\n");
        return 2;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "invidx_open_bench: %s\n", error.what());
        return 3;
    }
}
