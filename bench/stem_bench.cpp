// Stemming speed on one thread: libstemmer's porter (analysis/stem.hpp, what
// the analyzer uses today) against our header-only stemmer
// (analysis/porter.hpp), on every token of WARC.gz files in order (repeats
// included, no cache), best of R runs. Both must give the same stems: the
// run fails otherwise.
//
//     invidx_stem_bench [--repeat R] [FILE.warc.gz ...]   (default: the bundled sample)
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/porter.hpp"
#include "analysis/stem.hpp"
#include "analysis/tokenize.hpp"

namespace {

using namespace invidx;

std::string read_gzip(const std::string& path) {
    gzFile file = gzopen(path.c_str(), "rb");
    if (file == nullptr) {
        std::fprintf(stderr, "cannot open %s\n", path.c_str());
        std::exit(2);
    }
    std::string data;
    char buffer[1 << 16];
    for (int n; (n = gzread(file, buffer, sizeof buffer)) > 0;) data.append(buffer, static_cast<size_t>(n));
    gzclose(file);
    return data;
}

// FNV-1a over every stem and its length: equal digests, equal stems.
struct Digest {
    uint64_t value = 0xcbf29ce484222325ull;
    void add(std::string_view stem) {
        for (unsigned char c : stem) value = (value ^ c) * 0x100000001b3ull;
        value = (value ^ (stem.size() + 0x100)) * 0x100000001b3ull;
    }
};

template <class Stem>
double best_seconds(unsigned repeat, const std::string& bytes, const std::vector<uint32_t>& offsets, Stem stem,
                    uint64_t& digest) {
    double best = 1e30;
    for (unsigned r = 0; r < repeat; ++r) {
        Digest d;
        const auto start = std::chrono::steady_clock::now();
        for (size_t i = 0; i + 1 < offsets.size(); ++i) {
            d.add(stem(std::string_view(bytes).substr(offsets[i], offsets[i + 1] - offsets[i])));
        }
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        digest = d.value;
    }
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    unsigned repeat = 5;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        const std::string word = argv[i];
        if (word == "--repeat" && i + 1 < argc) {
            repeat = static_cast<unsigned>(std::max(1, std::atoi(argv[++i])));
        } else if (word == "--help" || word.rfind("--", 0) == 0) {
            std::fprintf(stderr, "usage: invidx_stem_bench [--repeat R] [FILE.warc.gz ...]\n");
            return word == "--help" ? 0 : 2;
        } else {
            files.push_back(word);
        }
    }
    if (files.empty()) files.push_back(std::string(INVIDX_SOURCE_DIR) + "/sample/debian-docs.warc.gz");

    // Every token, back to back (tokenizing is not timed).
    std::string bytes;
    std::vector<uint32_t> offsets{0};
    for (const auto& file : files) {
        tokenize(read_gzip(file), [&](std::string_view token) {
            bytes += token;
            offsets.push_back(static_cast<uint32_t>(bytes.size()));
        });
    }
    const double tokens = static_cast<double>(offsets.size() - 1);

    PorterStemmer libstemmer;
    uint64_t libstemmer_digest = 0;
    const double libstemmer_seconds = best_seconds(
        repeat, bytes, offsets, [&](std::string_view token) { return libstemmer.stem(token); }, libstemmer_digest);

    unsigned char stem[kMaxTokenBytes];
    uint64_t ours_digest = 0;
    const double ours_seconds = best_seconds(
        repeat, bytes, offsets,
        [&](std::string_view token) {
            const uint32_t n = porter_stem(reinterpret_cast<const unsigned char*>(token.data()),
                                           static_cast<uint32_t>(token.size()), stem);
            return std::string_view(reinterpret_cast<const char*>(stem), n);
        },
        ours_digest);

    std::printf("%.0f tokens, %.2f MB of token bytes, best of %u runs, one thread\n", tokens, bytes.size() / 1e6,
                repeat);
    std::printf("%-22s %12s %10s\n", "stemmer", "Mtokens/s", "ns/token");
    std::printf("%-22s %12.2f %10.1f\n", "libstemmer porter", tokens / libstemmer_seconds / 1e6,
                libstemmer_seconds / tokens * 1e9);
    std::printf("%-22s %12.2f %10.1f\n", "analysis/porter.hpp", tokens / ours_seconds / 1e6,
                ours_seconds / tokens * 1e9);
    if (libstemmer_digest != ours_digest) {
        std::printf("stems DIFFER (digest %016llx vs %016llx)\n", static_cast<unsigned long long>(libstemmer_digest),
                    static_cast<unsigned long long>(ours_digest));
        return 1;
    }
    std::printf("stems identical (digest %016llx), ours %.2fx libstemmer's speed\n",
                static_cast<unsigned long long>(ours_digest), libstemmer_seconds / ours_seconds);
    return 0;
}
