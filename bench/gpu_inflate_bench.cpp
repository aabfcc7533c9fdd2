// invidx_gpu_inflate_bench: how fast one GPU inflates a batch of whole gzip
// members (GpuInflater, devices/gpu_inflate.hpp; issue #32), beside one CPU
// core running the same decoder (inflate_members_on_host) and libdeflate.
//
// The batch is --members gzip members of HTML-ish generated text, each
// 2 to 200 KiB of text (log-uniform, as Common Crawl's records), compressed
// by zlib at --level; or, with --file, the members of a gzip file of many
// members (a .warc.gz). Every decoder's text is checked against libdeflate's
// (zlib's without libdeflate) before anything is timed. Rates are GB
// (10^9 bytes) of text per second, the median of --repeat runs:
//   gpu K, resident        kernel K alone on the batch in device memory
//                          (CUDA events): the decoder's rate; K is
//                          warp/member (the default kernel) and
//                          thread/member (the first one, for comparison)
//   gpu K, inflate()       the whole call: input over PCIe, kernel, text back
//   host decoder, 1 core   inflate_members_on_host on this thread
//   libdeflate, 1 core     libdeflate_gzip_decompress member by member
//
//   invidx_gpu_inflate_bench [--members N] [--level L] [--repeat R] [--device D] [--seed S]
//   invidx_gpu_inflate_bench --file FILE.warc.gz [--repeat R] [--device D]

#include <zlib.h>
#if defined(INVIDX_HAVE_LIBDEFLATE)
#include <libdeflate.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "devices/gpu_inflate.hpp"
#include "devices/inflate/crc32_combine.hpp"
#include "devices/inflate/warp_jobs.hpp"
#include "invidx/error.hpp"
#include "tools/common/flags.hpp"

namespace {

using namespace invidx;
using Clock = std::chrono::steady_clock;

struct Batch {
    std::string input;  // the members, back to back
    std::vector<InflateMember> members;
    uint64_t text_bytes = 0;
};

uint32_t isize_of(const char* member_end) {
    const auto* p = reinterpret_cast<const unsigned char*>(member_end - 4);
    return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

void add_member(Batch& batch, const std::string& member) {
    InflateMember m;
    m.in_offset = batch.input.size();
    m.in_size = static_cast<uint32_t>(member.size());
    m.out_offset = batch.text_bytes;
    m.out_size = isize_of(member.data() + member.size());
    batch.input += member;
    batch.text_bytes += m.out_size;
    batch.members.push_back(m);
}

// HTML-ish text of `size` bytes: tags, links, numbers and skewed words.
std::string page_text(std::mt19937& random, const std::vector<std::string>& words, size_t size) {
    std::string text = "WARC/1.0\r\nWARC-Type: response\r\n\r\n<!DOCTYPE html>\n<html><head><title>";
    std::geometric_distribution<size_t> pick(0.02);
    while (text.size() < size) {
        const uint32_t r = random();
        const std::string& word = words[std::min(pick(random), words.size() - 1)];
        switch (r % 16) {
            case 0: text += "</p>\n<p class=\"c" + std::to_string(r % 97) + "\">"; break;
            case 1: text += "<a href=\"https://www." + word + ".example/" + std::to_string(r % 100000) + "\">"; break;
            case 2: text += "</a> "; break;
            case 3: text += std::to_string(r % 1000000) + ' '; break;
            default: text += word + ' ';
        }
    }
    text.resize(size);
    return text;
}

std::string gzip_member(const std::string& text, int level) {
    z_stream z{};
    ensure(deflateInit2(&z, level, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) == Z_OK, "zlib deflateInit2");
    std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 32, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    ensure(deflate(&z, Z_FINISH) == Z_STREAM_END, "zlib deflate");
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

// `count` members, compressed on every core.
Batch generated_batch(size_t count, int level, unsigned seed) {
    std::mt19937 random(seed);
    std::vector<std::string> words;
    for (int i = 0; i < 3000; ++i) {
        std::string word;
        const size_t letters = 2 + random() % 9;
        for (size_t k = 0; k < letters; ++k) word += static_cast<char>('a' + random() % 26);
        words.push_back(word);
    }
    std::vector<size_t> sizes(count);
    std::vector<unsigned> seeds(count);
    for (size_t i = 0; i < count; ++i) {
        const double kib = 2.0 * std::pow(100.0, std::uniform_real_distribution<double>(0, 1)(random));  // 2 to 200 KiB
        sizes[i] = static_cast<size_t>(kib * 1024);
        seeds[i] = random();
    }
    std::vector<std::string> members(count);
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            for (size_t i = t; i < count; i += threads) {
                std::mt19937 member_random(seeds[i]);
                members[i] = gzip_member(page_text(member_random, words, sizes[i]), level);
            }
        });
    }
    for (std::thread& worker : workers) worker.join();
    Batch batch;
    for (const std::string& member : members) add_member(batch, member);
    return batch;
}

// The members of a gzip file of many members: each member's end found by
// zlib, which inflates it (its text is discarded here).
Batch file_batch(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    ensure(in.good(), "cannot open " + path);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    Batch batch;
    std::vector<char> sink(1 << 16);
    size_t at = 0;
    while (at < bytes.size()) {
        z_stream z{};
        ensure(inflateInit2(&z, 31) == Z_OK, "zlib inflateInit2");
        z.next_in = reinterpret_cast<Bytef*>(bytes.data() + at);
        z.avail_in = static_cast<uInt>(std::min<size_t>(bytes.size() - at, UINT32_MAX));
        int status;
        do {
            z.next_out = reinterpret_cast<Bytef*>(sink.data());
            z.avail_out = static_cast<uInt>(sink.size());
            status = ::inflate(&z, Z_NO_FLUSH);
        } while (status == Z_OK);
        const size_t used = z.total_in;
        inflateEnd(&z);
        ensure(status == Z_STREAM_END, path + ": not a gzip member at byte " + std::to_string(at));
        add_member(batch, bytes.substr(at, used));
        at += used;
    }
    return batch;
}

// What the warp kernel decodes in one member, by kind: a batch lasts at
// least as long as its longest member, so its symbols, against the
// kernel's time, give one warp's time a symbol.
struct SymbolCensus {
    uint64_t literals = 0;
    uint64_t short_matches = 0;  // at most 32 bytes: one load and one store a lane
    uint64_t far_matches = 0;    // of those, from more than 1 KiB back
    uint64_t long_matches = 0;   // more than 32 bytes: a copy of several steps
    uint64_t stored_blocks = 0;
    uint64_t symbols() const { return literals + short_matches + long_matches; }
};

SymbolCensus census_of(const Batch& batch, size_t member) {
    static constexpr invidx::inflate::Crc32Tables crc = invidx::inflate::make_crc32_tables();
    const InflateMember& m = batch.members[member];
    const auto* in = reinterpret_cast<const unsigned char*>(batch.input.data()) + m.in_offset;
    const auto tables = std::make_unique<invidx::inflate::DecoderTables>();
    invidx::inflate::LaneDecoder d{};
    InflateOutcome outcome;
    SymbolCensus census;
    ensure(invidx::inflate::start_member(in, m.in_size, crc.t, d, *tables, outcome), "census: not a gzip member");
    invidx::inflate::BitReader& r = d.r;
    uint32_t produced = 0;
    for (bool final_block = false; !final_block;) {
        invidx::inflate::BlockHeader block{};
        ensure(invidx::inflate::read_block_header(r, in, produced, m.out_size, *tables, block) == InflateStatus::ok,
               "census: a bad block header");
        final_block = block.final_block;
        if (block.stored) {
            ++census.stored_blocks;
            produced += block.stored_length;
            r.pos += block.stored_length;
            continue;
        }
        for (;;) {
            ensure(r.refill(), "census: truncated");
            const uint32_t e = invidx::inflate::read_litlen_entry(r, *tables);
            if (invidx::inflate::entry_kind(e) == invidx::inflate::kLiteral) {
                ++census.literals, ++produced;
                continue;
            }
            if (invidx::inflate::entry_kind(e) == invidx::inflate::kEnd) break;
            invidx::inflate::BlockMatch match{};
            ensure(invidx::inflate::read_match(r, *tables, e, produced, m.out_size, match) == InflateStatus::ok, "census: a bad match");
            if (match.length > 32) {
                ++census.long_matches;
            } else {
                ++census.short_matches;
                census.far_matches += match.distance > 1024;
            }
            produced += match.length;
        }
    }
    return census;
}

// The reference text: libdeflate's (zlib's without it), member by member.
std::string reference_text(const Batch& batch) {
    std::string text(batch.text_bytes, '\0');
#if defined(INVIDX_HAVE_LIBDEFLATE)
    libdeflate_decompressor* d = libdeflate_alloc_decompressor();
    for (const InflateMember& m : batch.members) {
        size_t out = 0;
        ensure(libdeflate_gzip_decompress(d, batch.input.data() + m.in_offset, m.in_size, text.data() + m.out_offset,
                                          m.out_size, &out) == LIBDEFLATE_SUCCESS && out == m.out_size,
               "libdeflate refuses a member");
    }
    libdeflate_free_decompressor(d);
#else
    for (const InflateMember& m : batch.members) {
        z_stream z{};
        ensure(inflateInit2(&z, 31) == Z_OK, "zlib inflateInit2");
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(batch.input.data() + m.in_offset));
        z.avail_in = m.in_size;
        z.next_out = reinterpret_cast<Bytef*>(text.data() + m.out_offset);
        z.avail_out = m.out_size;
        ensure(::inflate(&z, Z_FINISH) == Z_STREAM_END, "zlib refuses a member");
        inflateEnd(&z);
    }
#endif
    return text;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

template <class F>
double median_seconds(unsigned repeat, F&& run) {
    std::vector<double> seconds;
    for (unsigned r = 0; r < repeat; ++r) {
        const auto start = Clock::now();
        run();
        seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    return median(seconds);
}

struct Row {
    std::string what;
    double seconds;
};

tools::Flags bench_flags() {
    tools::Flags flags;
    flags.add({.name = "--members", .value_name = "N", .help = "generated gzip members, 2-200 KiB of text each (default 4000)"});
    flags.add({.name = "--level", .value_name = "L", .help = "zlib level of the generated members (default 6)"});
    flags.add({.name = "--file", .value_name = "FILE", .help = "the members of this gzip file of many members instead (a .warc.gz)"});
    flags.add({.name = "--repeat", .value_name = "R", .help = "runs per row; the median counts (default 5)"});
    flags.add({.name = "--device", .value_name = "D", .help = "GPU ordinal (default 0)"});
    flags.add({.name = "--seed", .value_name = "S", .help = "seed of the generated text (default 1)"});
    flags.add({.name = "--help", .help = "this help", .alias = "-h", .stops_parsing = true});
    return flags;
}

}  // namespace

// The kernels a GpuInflater can run, fastest first; each gets its rows.
struct GpuKernel {
    const char* name;
    GpuInflater::Kernel kernel;
};
constexpr GpuKernel gpu_kernels[] = {{"warp/member", GpuInflater::Kernel::warp_per_member},
                                     {"thread/member", GpuInflater::Kernel::thread_per_member}};

int main(int argc, char** argv) {
    size_t count = 4000;
    int level = 6;
    unsigned repeat = 5;
    int device = 0;
    unsigned seed = 1;
    std::string file;
    const tools::Flags flags = bench_flags();
    try {
        const tools::ParsedFlags given = flags.parse(std::vector<std::string>(argv + 1, argv + argc));
        if (given.has("--help")) {
            std::cout << flags.help({.usage = "usage: invidx_gpu_inflate_bench [--members N] [--level L] [--repeat R] [--device D]\n"
                                              "       invidx_gpu_inflate_bench --file FILE.warc.gz [--repeat R] [--device D]",
                                     .description = "A batch of whole gzip members inflated on a GPU (kernel alone, and the whole call\n"
                                                    "with PCIe both ways), beside one core's host decoder and libdeflate.",
                                     .options_heading = "Options:\n",
                                     .example = "  invidx_gpu_inflate_bench --members 8000 --repeat 7\n",
                                     .footer = "Exit codes: 0 done; 1 failed (or a decoder's text differs); 2 bad command line.\n"});
            return 0;
        }
        if (auto value = given.value("--members")) count = tools::positive_integer("--members", *value);
        if (auto value = given.value("--level")) level = static_cast<int>(tools::unsigned_integer("--level", *value));
        if (level > 9) throw tools::UsageError("--level: 0 to 9");
        if (auto value = given.value("--repeat")) repeat = static_cast<unsigned>(tools::positive_integer("--repeat", *value));
        if (auto value = given.value("--device")) device = static_cast<int>(tools::unsigned_integer("--device", *value));
        if (auto value = given.value("--seed")) seed = static_cast<unsigned>(tools::unsigned_integer("--seed", *value));
        if (auto value = given.value("--file")) file = *value;
        if (!given.arguments().empty()) throw tools::UsageError("unexpected argument '" + given.arguments().front() + "'");
    } catch (const tools::UsageError& error) {
        tools::exit_with_usage_error("invidx_gpu_inflate_bench", error.what());
    }

    try {
        const Batch batch = file.empty() ? generated_batch(count, level, seed) : file_batch(file);
        ensure(!batch.members.empty(), "no members");
        const std::string reference = reference_text(batch);
        std::printf("batch: %zu members, %.1f MB compressed, %.1f MB of text (%s)\n", batch.members.size(),
                    batch.input.size() / 1e6, batch.text_bytes / 1e6, file.empty() ? "generated" : file.c_str());
        const size_t longest = static_cast<size_t>(
            std::max_element(batch.members.begin(), batch.members.end(),
                             [](const InflateMember& a, const InflateMember& b) { return a.out_size < b.out_size; }) -
            batch.members.begin());
        const SymbolCensus census = census_of(batch, longest);
        std::printf("longest member: %u bytes of text, %llu symbols: %llu literals, %llu matches of at most 32 bytes "
                    "(%llu from more than 1 KiB back), %llu longer, %llu stored blocks\n",
                    batch.members[longest].out_size, static_cast<unsigned long long>(census.symbols()),
                    static_cast<unsigned long long>(census.literals), static_cast<unsigned long long>(census.short_matches),
                    static_cast<unsigned long long>(census.far_matches), static_cast<unsigned long long>(census.long_matches),
                    static_cast<unsigned long long>(census.stored_blocks));
        std::vector<Row> rows;

        std::string gpu_failure;  // the host rows are still measured without a usable GPU
        try {
            GpuInflater inflater(device, batch.input.size(), batch.text_bytes, batch.members.size());
            std::memcpy(inflater.input(), batch.input.data(), batch.input.size());
            for (const GpuKernel& k : gpu_kernels) {
                inflater.use_kernel(k.kernel);
                std::vector<InflateOutcome> outcomes = inflater.inflate(batch.input.size(), batch.members);  // warm-up, checked
                size_t not_ok = 0;
                for (const InflateOutcome& outcome : outcomes) not_ok += outcome.status != InflateStatus::ok;
                ensure(not_ok == 0, std::string(k.name) + ": the GPU did not inflate " + std::to_string(not_ok) + " members");
                ensure(std::memcmp(inflater.output(), reference.data(), reference.size()) == 0,
                       std::string(k.name) + ": the GPU's text differs from the reference");
                std::vector<double> kernel, copy_in, copy_out;
                const double whole = median_seconds(repeat, [&] {
                    inflater.inflate(batch.input.size(), batch.members);
                    const GpuInflater::Timings t = inflater.last_timings();
                    kernel.push_back(t.kernel), copy_in.push_back(t.copy_in), copy_out.push_back(t.copy_out);
                });
                std::vector<double> resident;
                for (unsigned r = 0; r < repeat; ++r) resident.push_back(inflater.time_resident_kernel());
                const std::string name = k.name;
                std::printf("gpu %s, resident: %.1f ns a symbol of the longest member (were the batch as long as it)\n",
                            k.name, median(resident) * 1e9 / static_cast<double>(census.symbols()));
                rows.push_back({"gpu " + name + ", resident", median(resident)});
                rows.push_back({"gpu " + name + ", inflate()", whole});
                rows.push_back({"  input to device", median(copy_in)});
                rows.push_back({"  kernel", median(kernel)});
                rows.push_back({"  text to host", median(copy_out)});
            }
        } catch (const Error& error) {
            gpu_failure = error.what();
        }

        std::string host(batch.text_bytes, '\0');
        std::vector<InflateOutcome> host_outcomes(batch.members.size());
        const unsigned host_repeat = std::min(repeat, 3u);
        const double host_seconds = median_seconds(host_repeat, [&] {
            inflate_members_on_host(batch.input.data(), batch.members.data(), batch.members.size(), host.data(),
                                    host_outcomes.data());
        });
        ensure(host == reference, "the host decoder's text differs from the reference");
        rows.push_back({"host decoder, 1 core", host_seconds});
#if defined(INVIDX_HAVE_LIBDEFLATE)
        libdeflate_decompressor* d = libdeflate_alloc_decompressor();
        std::string lib(batch.text_bytes, '\0');
        const double lib_seconds = median_seconds(host_repeat, [&] {
            for (const InflateMember& m : batch.members) {
                libdeflate_gzip_decompress(d, batch.input.data() + m.in_offset, m.in_size, lib.data() + m.out_offset, m.out_size,
                                           nullptr);
            }
        });
        libdeflate_free_decompressor(d);
        ensure(lib == reference, "libdeflate's text differs");
        rows.push_back({"libdeflate, 1 core", lib_seconds});
#endif

        std::printf("\n%-30s %12s %12s\n", "decoder", "median ms", "GB/s text");
        for (const Row& row : rows) {
            std::printf("%-30s %12.3f %12.2f\n", row.what.c_str(), row.seconds * 1e3,
                        row.seconds > 0 ? batch.text_bytes / row.seconds / 1e9 : 0.0);
        }
        if (!gpu_failure.empty()) {
            std::fprintf(stderr, "invidx_gpu_inflate_bench: no GPU rows: %s\n", gpu_failure.c_str());
            return 1;
        }
        return 0;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "invidx_gpu_inflate_bench: %s\n", error.what());
        return 1;
    }
}
