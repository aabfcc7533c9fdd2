// The compact term dictionaries (lexicon/) on an index's own dictionary:
// bytes per term against dictionary.bin's, and single-thread CPU lookups per
// second against IndexReader::find_term (binary search over the mapped
// dictionary), for three lookup streams:
//   all terms  every term once, shuffled (uniform over the vocabulary, the
//              paper's T_unif);
//   by cf      terms drawn in proportion to their collection frequency, as
//              the words of a text are (the paper's T_freq);
//   misses     strings one byte off a term (one more, one less, one changed).
// With --gpu (a CUDA build on a GPU machine) the by-cf stream is also looked
// up on GPU 0, one thread per string, and checked against the host's answers:
// M lookups/s of the kernel alone and with the copies.
// --clock cpu times lookups by the thread's CPU time (wall time by default).
//   invidx_dictionary_bench IDX [--lookups N] [--format json] [--gpu] [--clock wall|cpu]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <ctime>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "devices/gpu_term_lookup.hpp"
#include "store/index_reader.hpp"
#include "store/term_lookup.hpp"

using namespace invidx;

namespace {

using Clock = std::chrono::steady_clock;

// --clock cpu: the thread's CPU time instead of wall time, so that on a
// machine shared with other jobs the time this thread waits for a core is
// not counted (the caches it shares still are).
bool thread_cpu_clock = false;

double seconds_now() {
    if (thread_cpu_clock) {
        timespec now{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
        return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
    }
    return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

template <typename Find>
double lookups_per_second(const std::vector<std::string>& stream, const Find& find, uint64_t& checksum) {
    // Repeat the stream until at least 0.3 s have passed: short streams of a small index time poorly.
    const double start = seconds_now();
    uint64_t done = 0;
    double seconds = 0;
    do {
        for (const auto& term : stream) {
            const auto found = find(term);
            checksum += found ? *found + 1 : 0;
        }
        done += stream.size();
        seconds = seconds_now() - start;
    } while (seconds < 0.3);
    return static_cast<double>(done) / seconds;
}

}  // namespace

int run(int argc, char** argv) {
    if (argc < 2 || std::string_view(argv[1]) == "--help") {
        std::fprintf(stderr, "usage: invidx_dictionary_bench IDX [--lookups N] [--format json] [--gpu] [--clock wall|cpu]\n");
        return 2;
    }
    const std::filesystem::path directory = argv[1];
    size_t lookups = 1'000'000;
    bool json = false;
    bool gpu = false;
    for (int i = 2; i < argc; ++i) {
        const std::string_view flag = argv[i];
        if (flag == "--lookups" && i + 1 < argc) lookups = std::strtoull(argv[++i], nullptr, 10);
        else if (flag == "--format" && i + 1 < argc) json = std::string_view(argv[++i]) == "json";
        else if (flag == "--gpu") gpu = true;
        else if (flag == "--clock" && i + 1 < argc) thread_cpu_clock = std::string_view(argv[++i]) == "cpu";
        else {
            std::fprintf(stderr, "invidx_dictionary_bench: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    const IndexReader index(directory);
    const uint64_t terms = index.term_count();
    if (terms == 0) {
        std::fprintf(stderr, "invidx_dictionary_bench: %s has no terms\n", argv[1]);
        return 1;
    }
    const double host_bytes = static_cast<double>(std::filesystem::file_size(directory / "dictionary.bin"));
    uint64_t term_bytes = 0;
    std::vector<std::string> all;
    std::vector<double> cfs;
    all.reserve(terms);
    for (uint64_t i = 0; i < terms; ++i) {
        const TermInfo info = index.term(i);
        all.emplace_back(info.term);
        cfs.push_back(static_cast<double>(info.cf));
        term_bytes += info.term.size();
    }
    std::mt19937_64 random(42);
    std::vector<std::string> shuffled = all;
    std::shuffle(shuffled.begin(), shuffled.end(), random);
    if (shuffled.size() > lookups) shuffled.resize(lookups);
    std::vector<std::string> by_cf, misses;
    std::discrete_distribution<uint64_t> by_frequency(cfs.begin(), cfs.end());
    for (size_t k = 0; k < lookups; ++k) by_cf.push_back(all[by_frequency(random)]);
    for (size_t k = 0; misses.size() < std::min<size_t>(lookups, 3 * terms); ++k) {
        std::string term = all[random() % terms];
        switch (k % 3) {
            case 0: term.push_back('q'); break;
            case 1:
                if (!term.empty()) term.pop_back();
                break;
            default:
                if (!term.empty()) term[random() % term.size()] ^= 0x20;
                break;
        }
        if (!index.find_term(term)) misses.push_back(term);
    }

    struct Row {
        std::string kind;
        double bytes = 0, build_ms = 0, all_per_s = 0, cf_per_s = 0, miss_per_s = 0;
    };
    std::vector<Row> rows;
    uint64_t checksum = 0;
    {
        Row row{"dictionary.bin (binary search)", host_bytes, 0, 0, 0, 0};
        auto find = [&](const std::string& term) { return index.find_term(term); };
        row.all_per_s = lookups_per_second(shuffled, find, checksum);
        row.cf_per_s = lookups_per_second(by_cf, find, checksum);
        row.miss_per_s = lookups_per_second(misses, find, checksum);
        rows.push_back(row);
    }
    for (const auto kind : {TermLookupKind::xbw, TermLookupKind::hash}) {
        const auto start = Clock::now();
        const TermLookup lookup(index, kind);
        Row row{std::string(term_lookup_name(kind)), static_cast<double>(lookup.bytes()),
                std::chrono::duration<double, std::milli>(Clock::now() - start).count(), 0, 0, 0};
        if (kind == TermLookupKind::xbw) {
            const auto& trie = std::get<lexicon::XbwTrie>(lookup.structure());
            const auto& sections = trie.sections();
            // Section sizes from the offsets, in layout order.
            const double labels = static_cast<double>(sections.code_of_byte_offset) * 8;
            const double tables = static_cast<double>(sections.last_edge.words_offset - sections.code_of_byte_offset) * 8;
            const double bits = static_cast<double>(trie.buffer().size() - sections.last_edge.words_offset) * 8;
            std::fprintf(stderr,
                         "xbw: %llu nodes (%.2f a term), %u symbols; bytes a term: labels (wavelet matrix, %u levels at most) %.2f, "
                         "code and child tables %.3f, S_last + internal + terminal %.2f\n",
                         static_cast<unsigned long long>(trie.node_count()), static_cast<double>(trie.node_count()) / terms,
                         sections.symbol_count, sections.level_count, labels / terms, tables / terms, bits / terms);
        }
        auto find = [&](const std::string& term) { return lookup.find(term); };
        row.all_per_s = lookups_per_second(shuffled, find, checksum);
        row.cf_per_s = lookups_per_second(by_cf, find, checksum);
        row.miss_per_s = lookups_per_second(misses, find, checksum);
        rows.push_back(row);
        if (gpu) {
            GpuLookupInput input;
            input.offsets.push_back(0);
            for (const auto& term : by_cf) {
                input.bytes += term;
                input.offsets.push_back(static_cast<uint32_t>(input.bytes.size()));
            }
            // Twice: the first call also loads the kernel and grows the allocator's pool.
            GpuLookupResult result;
            for (int run = 0; run < 2; ++run)
                result = std::visit(
                    [&](const auto& structure) { return gpu_find_terms(0, structure.sections(), structure.buffer(), input); },
                    lookup.structure());
            size_t wrong = 0;
            for (size_t k = 0; k < by_cf.size(); ++k) {
                const auto host = lookup.find(by_cf[k]);
                wrong += result.term_ids[k] != (host ? *host : lexicon::kTermNotFound);
            }
            std::printf("gpu %s: %zu lookups by cf, %zu differ from the host; kernel %.3f ms (%.1f M/s), with copies %.3f ms (%.1f M/s)\n",
                        row.kind.c_str(), by_cf.size(), wrong, result.kernel_ms, by_cf.size() / result.kernel_ms / 1e3,
                        result.total_ms, by_cf.size() / result.total_ms / 1e3);
        }
    }
    const double per_term = static_cast<double>(terms);
    if (json) {
        for (const auto& row : rows)
            std::printf("{\"kind\":\"%s\",\"terms\":%llu,\"bytes\":%.0f,\"bytes_per_term\":%.3f,\"build_ms\":%.1f,"
                        "\"lookups_per_s_all\":%.0f,\"lookups_per_s_by_cf\":%.0f,\"lookups_per_s_misses\":%.0f}\n",
                        row.kind.c_str(), static_cast<unsigned long long>(terms), row.bytes, row.bytes / per_term, row.build_ms,
                        row.all_per_s, row.cf_per_s, row.miss_per_s);
    } else {
        std::printf("%llu terms, %.2f term bytes a term; dictionary.bin %.2f bytes a term\n",
                    static_cast<unsigned long long>(terms), static_cast<double>(term_bytes) / per_term, host_bytes / per_term);
        std::printf("| structure | bytes/term | vs dictionary.bin | build ms | M lookups/s all terms | by cf | misses |\n");
        std::printf("|---|---:|---:|---:|---:|---:|---:|\n");
        for (const auto& row : rows)
            std::printf("| %s | %.2f | %.3f | %.0f | %.2f | %.2f | %.2f |\n", row.kind.c_str(), row.bytes / per_term,
                        row.bytes / host_bytes, row.build_ms, row.all_per_s / 1e6, row.cf_per_s / 1e6, row.miss_per_s / 1e6);
    }
    std::fprintf(stderr, "checksum %llu\n", static_cast<unsigned long long>(checksum));
    return 0;
}

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "invidx_dictionary_bench: %s\n", error.what());
        return 1;
    }
}
