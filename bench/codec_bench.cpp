// invidx_codec_bench: what each integer codec (store/codecs/) would cost on a
// real index: every term's docid list and tf list, encoded as the
// query-ready layout (query.post) stores them, in blocks of 128 postings (docids as
// gap − 1 from the previous docid, tfs as tf − 1: store/codecs/docid_gaps.hpp).
// Per codec it prints the space (bits per docid, bits per tf; block skip data
// not counted) and, on one thread, the speeds:
//   decode     docid-gap and tf values decoded per second (into a 128-value
//              buffer that stays in L1, as a query decodes block by block)
//   +docids    docid blocks decoded and turned into docids (prefix sum)
//   encode     values encoded per second
// Each speed is the median of --repeat repetitions; a repetition runs whole
// passes over every list until at least 0.2 s have gone by. Every codec's
// output is decoded and compared with the input once, untimed, first.
// A second PForDelta row gives each list one b (Ding et al. 2009, §6.2)
// instead of one per block. --min-df N keeps only the lists of at least N
// postings: the long lists that queries spend their time in. --gpu adds a
// table of GPU decoding (devices/gpu_codecs.hpp): PForDelta and Rice on the
// units of their CPU rows, bp128 on the full blocks, each checked against
// the CPU's decode (the benchmark fails on a difference); each speed is the
// median of --repeat passes timed with CUDA events (bench/gpu_pass_timer.hpp)
// after an untimed one.
//
//   invidx_codec_bench IDX [--repeat R] [--codec NAME]... [--min-df N] [--gpu]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "invidx/error.hpp"
#include "devices/gpu_codecs.hpp"
#ifdef INVIDX_HAVE_CUDA
#include "bench/gpu_pass_timer.hpp"
#endif
#include "store/codecs/docid_gaps.hpp"
#include "store/codecs/registry.hpp"
#include "store/index_reader.hpp"
#include "tools/common/flags.hpp"

namespace {

using namespace invidx;
using codecs::Codec;

constexpr size_t kBlockPostings = 128;
constexpr double kMinRepetitionSeconds = 0.2;

// A range of values encoded as one unit: a block of a list, or a whole list.
struct Unit {
    size_t start = 0;
    size_t count = 0;
    uint32_t next_docid = 0;  // previous docid + 1: where the prefix sum starts
};

struct Collection {
    std::vector<uint32_t> docid_values;  // every list's docids as gap − 1, lists back to back
    std::vector<uint32_t> tf_values;     // tf − 1
    std::vector<Unit> blocks;            // blocks of 128 postings (the last of a list shorter)
    std::vector<Unit> lists;             // one unit per term
    size_t longest_list = 0;
    uint64_t postings() const { return docid_values.size(); }
};

Collection load(const IndexReader& index, uint64_t min_df) {
    Collection out;
    out.docid_values.reserve(index.num_postings());
    out.tf_values.reserve(index.num_postings());
    for (uint64_t term = 0; term < index.term_count(); ++term) {
        if (index.term(term).df < min_df) continue;
        const auto list = index.postings(term);
        const size_t start = out.docid_values.size();
        out.docid_values.resize(start + list.docids.size());
        codecs::docids_to_gaps(list.docids, 0, out.docid_values.data() + start);
        for (const uint32_t tf : list.tfs) out.tf_values.push_back(tf - 1);
        out.lists.push_back({start, list.docids.size(), 0});
        out.longest_list = std::max(out.longest_list, list.docids.size());
        for (size_t at = 0; at < list.docids.size(); at += kBlockPostings) {
            out.blocks.push_back({start + at, std::min(kBlockPostings, list.docids.size() - at),
                                  at == 0 ? 0 : list.docids[at - 1] + 1});
        }
    }
    return out;
}

struct Encoded {
    std::string bytes;
    std::vector<size_t> ends;  // byte end of each unit
};

void encode_units(const Codec& codec, const std::vector<uint32_t>& values, const std::vector<Unit>& units,
                  Encoded& out) {
    out.bytes.clear();
    out.ends.clear();
    for (const Unit& unit : units) {
        codec.encode(std::span(values).subspan(unit.start, unit.count), out.bytes);
        out.ends.push_back(out.bytes.size());
    }
}

// Decodes every unit into `buffer`; with_docids adds the prefix sum. Returns
// a checksum so that nothing can be left out.
uint64_t decode_units(const Codec& codec, const Encoded& encoded, const std::vector<Unit>& units,
                      std::vector<uint32_t>& buffer, bool with_docids) {
    uint64_t checksum = 0;
    size_t begin = 0;
    const std::string_view bytes = encoded.bytes;
    for (size_t u = 0; u < units.size(); ++u) {
        const std::span<uint32_t> out(buffer.data(), units[u].count);
        codec.decode(bytes.substr(begin, encoded.ends[u] - begin), out);
        if (with_docids) codecs::gaps_to_docids(out, units[u].next_docid);
        checksum += out.back();
        begin = encoded.ends[u];
    }
    return checksum;
}

bool decodes_back(const Codec& codec, const Encoded& encoded, const std::vector<Unit>& units,
                  const std::vector<uint32_t>& values, std::vector<uint32_t>& buffer) {
    size_t begin = 0;
    for (size_t u = 0; u < units.size(); ++u) {
        const std::span<uint32_t> out(buffer.data(), units[u].count);
        codec.decode(std::string_view(encoded.bytes).substr(begin, encoded.ends[u] - begin), out);
        if (!std::equal(out.begin(), out.end(), values.begin() + static_cast<std::ptrdiff_t>(units[u].start))) return false;
        begin = encoded.ends[u];
    }
    return true;
}

// Seconds per call of `pass`: median of `repeat` repetitions of enough passes
// to last kMinRepetitionSeconds.
template <class Pass>
double seconds_per_pass(unsigned repeat, Pass&& pass) {
    using Clock = std::chrono::steady_clock;
    auto time = [&](unsigned passes) {
        const auto start = Clock::now();
        for (unsigned p = 0; p < passes; ++p) pass();
        return std::chrono::duration<double>(Clock::now() - start).count();
    };
    const double once = std::max(time(1), 1e-7);
    const auto passes = static_cast<unsigned>(std::max(1.0, std::ceil(kMinRepetitionSeconds / once)));
    std::vector<double> per_pass;
    for (unsigned r = 0; r < repeat; ++r) per_pass.push_back(time(passes) / passes);
    std::sort(per_pass.begin(), per_pass.end());
    return per_pass[per_pass.size() / 2];
}

struct Row {
    std::string codec;
    std::string unit;
    double bits_per_docid = 0;
    double bits_per_tf = 0;
    double decode_million_per_s = 0;
    double docids_million_per_s = 0;
    double encode_million_per_s = 0;
};

uint64_t g_sink = 0;  // keeps the decode results alive

Row measure(const Codec& codec, const Collection& collection, const std::vector<Unit>& units, std::string unit_name,
            unsigned repeat) {
    Row row{std::string(codec.name), std::move(unit_name)};
    std::vector<uint32_t> buffer(std::max(kBlockPostings, collection.longest_list));
    Encoded docids, tfs;
    encode_units(codec, collection.docid_values, units, docids);
    encode_units(codec, collection.tf_values, units, tfs);
    if (!decodes_back(codec, docids, units, collection.docid_values, buffer) ||
        !decodes_back(codec, tfs, units, collection.tf_values, buffer)) {
        throw Error("codec '" + std::string(codec.name) + "' does not decode what it encoded");
    }
    const double postings = static_cast<double>(collection.postings());
    row.bits_per_docid = 8.0 * static_cast<double>(docids.bytes.size()) / postings;
    row.bits_per_tf = 8.0 * static_cast<double>(tfs.bytes.size()) / postings;

    const double decode_s = seconds_per_pass(repeat, [&] {
        g_sink += decode_units(codec, docids, units, buffer, false);
        g_sink += decode_units(codec, tfs, units, buffer, false);
    });
    const double docids_s = seconds_per_pass(repeat, [&] { g_sink += decode_units(codec, docids, units, buffer, true); });
    Encoded scratch_docids, scratch_tfs;
    const double encode_s = seconds_per_pass(repeat, [&] {
        encode_units(codec, collection.docid_values, units, scratch_docids);
        encode_units(codec, collection.tf_values, units, scratch_tfs);
        g_sink += scratch_docids.bytes.size() + scratch_tfs.bytes.size();
    });
    row.decode_million_per_s = 2 * postings / decode_s / 1e6;
    row.docids_million_per_s = postings / docids_s / 1e6;
    row.encode_million_per_s = 2 * postings / encode_s / 1e6;
    return row;
}

tools::Flags bench_flags() {
    tools::Flags flags;
    flags.add({.name = "--repeat", .value_name = "R", .help = "repetitions per speed; the median counts (default 5)"});
    flags.add({.name = "--codec", .value_name = "NAME", .help = "only this codec; may be repeated (" + codecs::codec_names() + ")",
               .repeats = tools::Repeats::kCollect});
    flags.add({.name = "--min-df", .value_name = "N", .help = "only the lists of at least N postings (default 0)"});
    flags.add({.name = "--gpu", .help = "also the GPU decoding table"});
    flags.add({.name = "--help", .help = "this help", .alias = "-h", .stops_parsing = true});
    return flags;
}

std::string bench_help(const tools::Flags& flags) {
    return flags.help({.usage = "usage: invidx_codec_bench IDX [--repeat R] [--codec NAME]... [--min-df N] [--gpu]",
                       .description = "What each integer codec would cost on the index in IDX: space, and decode and\n"
                                      "encode speeds on one thread.",
                       .options_heading = "Options:\n",
                       .example = "  invidx_codec_bench index --repeat 5\n",
                       .footer = "Exit codes: 0 done; 1 failed (or a decode differed); 2 bad command line.\n"});
}

#ifdef INVIDX_HAVE_CUDA

// One untimed pass, then `repeat` timed ones: decode(passes) returns the
// result, and the median pass's seconds come back in `seconds`.
template <class Decode>
GpuDecodeResult timed_decode(unsigned repeat, double& seconds, Decode&& decode) {
    bench::GpuPassTimer timer;
    const GpuDecodeResult result = decode(GpuDecodePasses{repeat + 1, &timer});
    seconds = timer.median_seconds(1);
    return result;
}

// A row of the GPU table.
struct GpuRow {
    std::string codec;
    std::string unit;
    size_t units = 0;
    double bits_per_docid = 0;
    double decode_million_per_s = 0;  // values decoded (docid gaps and tfs; bp128: docid gaps)
    double docids_million_per_s = 0;
};

// The bp128 row: every full block of 128 postings encoded with bp128 on its
// own (a bit-width byte and 16·b bytes), decoded on the device, checked
// against the CPU's values through the checksum of each block's last value.
GpuRow measure_gpu_bp128(const Collection& collection, unsigned repeat, std::string& device) {
    const Codec& codec = codecs::find_codec("bp128");
    std::string bytes;
    std::vector<uint64_t> offsets;
    std::vector<uint32_t> first_docids;
    uint64_t expected_gaps = 0, expected_docids = 0;
    for (const Unit& block : collection.blocks) {
        if (block.count != kBlockPostings) continue;
        offsets.push_back(bytes.size());
        first_docids.push_back(block.next_docid);
        const auto values = std::span(collection.docid_values).subspan(block.start, block.count);
        codec.encode(values, bytes);
        expected_gaps += values.back();
        uint32_t docid = block.next_docid;
        for (size_t i = 0; i < values.size(); ++i) docid += values[i] + (i == 0 ? 0 : 1);
        expected_docids += docid;
    }
    GpuRow row{"bp128", "full block", offsets.size()};
    if (offsets.empty()) return row;
    double gaps_seconds = 0, docids_seconds = 0;
    const GpuDecodeResult gaps = timed_decode(repeat, gaps_seconds, [&](GpuDecodePasses passes) {
        return gpu_decode_bp128(bytes, offsets, first_docids, false, passes);
    });
    const GpuDecodeResult docids = timed_decode(repeat, docids_seconds, [&](GpuDecodePasses passes) {
        return gpu_decode_bp128(bytes, offsets, first_docids, true, passes);
    });
    if (gaps.checksum != expected_gaps || docids.checksum != expected_docids)
        throw Error("GPU bp128 decoding differs from the CPU's");
    device = gaps.device;
    row.bits_per_docid = 8.0 * static_cast<double>(bytes.size()) / static_cast<double>(gaps.integers);
    row.decode_million_per_s = static_cast<double>(gaps.integers) / gaps_seconds / 1e6;
    row.docids_million_per_s = static_cast<double>(docids.integers) / docids_seconds / 1e6;
    return row;
}

// Appends encoded units, as the GPU decoders take them.
void append_units(const Encoded& encoded, const std::vector<Unit>& units, GpuEncodedUnits& out) {
    const uint64_t base = out.bytes.size();
    out.bytes += encoded.bytes;
    for (size_t u = 0; u < units.size(); ++u) {
        out.byte_ends.push_back(base + encoded.ends[u]);
        out.value_counts.push_back(static_cast<uint32_t>(units[u].count));
        out.first_docids.push_back(units[u].next_docid);
    }
}

// A PForDelta or Rice row: the units of the CPU row (every block, or every
// list), docid gaps and tfs decoded in one launch, then the docid units
// turned into docids; checked against the CPU decode of the same bytes
// through the checksum of every unit's last value.
GpuRow measure_gpu_units(const Codec& codec, const Collection& collection, const std::vector<Unit>& units,
                         std::string unit_name, unsigned repeat, std::string& device) {
    const auto decode = codec.name == "pfor" ? &gpu_decode_pfor : &gpu_decode_rice;
    Encoded docids, tfs;
    encode_units(codec, collection.docid_values, units, docids);
    encode_units(codec, collection.tf_values, units, tfs);
    std::vector<uint32_t> buffer(std::max(kBlockPostings, collection.longest_list));
    const uint64_t expected_values =
        decode_units(codec, docids, units, buffer, false) + decode_units(codec, tfs, units, buffer, false);
    const uint64_t expected_docids = decode_units(codec, docids, units, buffer, true);

    GpuEncodedUnits both, docid_units;
    append_units(docids, units, both);
    append_units(tfs, units, both);
    append_units(docids, units, docid_units);
    double values_seconds = 0, summed_seconds = 0;
    const GpuDecodeResult values = timed_decode(
        repeat, values_seconds, [&](GpuDecodePasses passes) { return decode(both, false, nullptr, passes); });
    const GpuDecodeResult summed = timed_decode(
        repeat, summed_seconds, [&](GpuDecodePasses passes) { return decode(docid_units, true, nullptr, passes); });
    if (values.checksum != expected_values || summed.checksum != expected_docids) {
        throw Error("GPU " + std::string(codec.name) + " decoding (per " + unit_name + ") differs from the CPU's");
    }
    device = values.device;
    GpuRow row{std::string(codec.name), std::move(unit_name), units.size()};
    row.bits_per_docid = 8.0 * static_cast<double>(docids.bytes.size()) / static_cast<double>(collection.postings());
    row.decode_million_per_s = static_cast<double>(values.integers) / values_seconds / 1e6;
    row.docids_million_per_s = static_cast<double>(summed.integers) / summed_seconds / 1e6;
    return row;
}

void measure_gpu(const Collection& collection, const std::vector<const Codec*>& chosen, unsigned repeat) {
    std::string device;
    std::vector<GpuRow> rows;
    for (const Codec* codec : chosen) {
        if (codec->name != "pfor" && codec->name != "rice") continue;
        rows.push_back(measure_gpu_units(*codec, collection, collection.blocks, "block", repeat, device));
        if (codec->name == "pfor") {
            rows.push_back(measure_gpu_units(*codec, collection, collection.lists, "list", repeat, device));
        }
    }
    rows.push_back(measure_gpu_bp128(collection, repeat, device));
    std::printf("\nGPU %s, units resident in device memory, one thread block per unit, median of %u passes; "
                "pfor and rice: every unit of the CPU rows, docid gaps and tfs (decoded values written to device "
                "memory); bp128: the full blocks' docid gaps only (nothing written):\n",
                device.c_str(), repeat);
    std::printf("| codec | per | units | bits/docid | decode M int/s | +docids M/s |\n|---|---|---:|---:|---:|---:|\n");
    for (const GpuRow& row : rows) {
        std::printf("| %s | %s | %zu | %.2f | %.0f | %.0f |\n", row.codec.c_str(), row.unit.c_str(), row.units,
                    row.bits_per_docid, row.decode_million_per_s, row.docids_million_per_s);
    }
}

#else

void measure_gpu(const Collection&, const std::vector<const Codec*>&, unsigned) {
    throw Error("invidx was built without CUDA: no GPU decoding");
}

#endif

}  // namespace

int main(int argc, char** argv) {
    std::string directory;
    unsigned repeat = 5;
    uint64_t min_df = 0;
    std::vector<const Codec*> chosen;
    bool gpu = false;
    try {
        const tools::Flags flags = bench_flags();
        try {
            const tools::ParsedFlags given = flags.parse(std::vector<std::string>(argv + 1, argv + argc));
            if (given.has("--help")) {
                std::cout << bench_help(flags);
                return 0;
            }
            if (auto value = given.value("--repeat")) repeat = static_cast<unsigned>(tools::positive_integer("--repeat", *value));
            if (auto value = given.value("--min-df")) min_df = tools::unsigned_integer("--min-df", *value);
            gpu = given.has("--gpu");
            for (const auto& name : given.values("--codec")) {
                try {
                    chosen.push_back(&codecs::find_codec(name));
                } catch (const Error& error) {
                    throw tools::UsageError("--codec: " + error.message());
                }
            }
            if (given.arguments().size() > 1) throw tools::UsageError("unexpected argument " + given.arguments()[1]);
            if (given.arguments().empty()) throw tools::UsageError("no index");
            directory = given.arguments()[0];
        } catch (const tools::UsageError& error) {
            tools::exit_with_usage_error("invidx_codec_bench", error.what());
        }
        if (chosen.empty()) {
            for (const Codec& codec : codecs::all_codecs()) chosen.push_back(&codec);
        }

        const IndexReader index(directory);
        const auto load_start = std::chrono::steady_clock::now();
        const Collection collection = load(index, min_df);
        const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();
        if (collection.postings() == 0) throw Error("no postings in lists of at least --min-df");
        size_t long_lists = 0;
        uint64_t postings_in_long_lists = 0;
        for (const Unit& list : collection.lists) {
            if (list.count < kBlockPostings) continue;
            ++long_lists;
            postings_in_long_lists += list.count;
        }
        std::printf("index %s: %llu documents; %zu lists%s, %llu postings (%.1f%% in the %zu lists of >= 128), "
                    "%zu blocks; loaded in %.2f s\n",
                    directory.c_str(), static_cast<unsigned long long>(index.num_documents()), collection.lists.size(),
                    min_df > 0 ? (" of df >= " + std::to_string(min_df)).c_str() : "",
                    static_cast<unsigned long long>(collection.postings()),
                    100.0 * static_cast<double>(postings_in_long_lists) / static_cast<double>(collection.postings()),
                    long_lists, collection.blocks.size(), load_s);
        std::printf("one thread, median of %u repetitions (each >= %.1f s); M = 10^6\n", repeat, kMinRepetitionSeconds);

        std::vector<Row> rows;
        for (const Codec* codec : chosen) {
            rows.push_back(measure(*codec, collection, collection.blocks, "block", repeat));
            if (codec->name == "pfor") rows.push_back(measure(*codec, collection, collection.lists, "list", repeat));
        }

        std::printf("\n| codec | per | bits/docid | bits/tf | decode M int/s | +docids M/s | encode M int/s |\n");
        std::printf("|---|---|---:|---:|---:|---:|---:|\n");
        for (const Row& row : rows) {
            std::printf("| %s | %s | %.2f | %.2f | %.0f | %.0f | %.0f |\n", row.codec.c_str(), row.unit.c_str(),
                        row.bits_per_docid, row.bits_per_tf, row.decode_million_per_s, row.docids_million_per_s,
                        row.encode_million_per_s);
        }
        if (gpu) measure_gpu(collection, chosen, repeat);
        if (g_sink == 42) std::printf(" ");  // the sink must look used
        return 0;
    } catch (const std::exception& error) {
        std::cerr << "invidx_codec_bench: " << error.what() << "\n";
        return 1;
    }
}
