// invidx_gpu_pieces_bench: how fast one GPU decodes the pieces of a gzip
// file of one deflate stream (GpuPieceDecoder, devices/gpu_stream_pieces.hpp;
// issue #32), a warp a piece, each without the window before it, beside one
// CPU core decoding the same pieces (decode_deflate_piece, what the
// decompress node's workers run for split_gzip_streams).
//
// FILE (e.g. a ClueWeb-style WARC.gz, or bench/stream_pieces.sh's files) is
// cut every --piece-bytes compressed bytes; piece k searches its own bytes
// for its first dynamic block and stops at the first dynamic block at or
// after piece k + 1's first byte, reading on into the bytes after it (a
// piece in which no block starts passes through, as in a build). Every
// GPU piece is checked against the CPU's (the block found, where it stops,
// every symbol), and the CPU's pieces, resolved in order, against the gzip
// trailer's CRC-32 and length, before anything is timed. Rates are GB
// (10^9 bytes) of text per second, the median of --repeat runs:
//   gpu, resident     the kernel alone on the batch in device memory
//   gpu, decode()     the whole call: bytes over PCIe, kernel, symbols back
//   cpu, 1 core       decode_deflate_piece piece after piece on this thread
//
//   invidx_gpu_pieces_bench FILE.gz [--piece-bytes N] [--repeat R] [--device D]

#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "devices/gpu_stream_pieces.hpp"
#include "bench/whole_file.hpp"
#include "invidx/error.hpp"
#include "nodes/decompress/deflate_piece.hpp"
#include "nodes/decompress/piece_batch_decoder.hpp"
#include "tools/common/flags.hpp"

namespace {

using namespace invidx;
using Clock = std::chrono::steady_clock;

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

// Piece k: its bytes from its first byte to the file's end, searched over
// its own `piece_bytes` (the first from its deflate data), stopping at the
// next piece's first byte (the last: at the stream's end).
struct PiecePlan {
    uint64_t offset = 0;
    inflate::PieceBounds bounds;
};

std::vector<PiecePlan> plan_pieces(const std::string& file, size_t header, size_t piece_bytes) {
    std::vector<PiecePlan> plans;
    for (uint64_t offset = 0; offset < file.size(); offset += piece_bytes) {
        PiecePlan p;
        p.offset = offset;
        p.bounds.search_bit = offset == 0 ? uint64_t{header} * 8 : 0;
        p.bounds.search_end_bit = uint64_t{piece_bytes} * 8;
        if (offset + piece_bytes < file.size()) {
            p.bounds.stop_bit = uint64_t{piece_bytes} * 8;
            p.bounds.has_stop = 1;
        }
        plans.push_back(p);
    }
    return plans;
}

DeflatePiece cpu_piece(const std::string& file, const PiecePlan& p, PieceSymbols buffer = {}) {
    const std::string_view bytes = std::string_view(file).substr(p.offset);
    DeflatePieceLimits limits;
    if (p.bounds.has_stop) limits.stop_bit = p.bounds.stop_bit;
    return decode_deflate_piece(bytes, p.bounds.search_bit, p.bounds.search_end_bit, limits, std::move(buffer));
}

tools::Flags bench_flags() {
    tools::Flags flags;
    flags.add({.name = "--piece-bytes", .value_name = "N", .help = "compressed bytes a piece (default 65536)"});
    flags.add({.name = "--repeat", .value_name = "R", .help = "runs per row; the median counts (default 5)"});
    flags.add({.name = "--device", .value_name = "D", .help = "GPU ordinal (default 0)"});
    flags.add({.name = "--help", .help = "this help", .alias = "-h", .stops_parsing = true});
    return flags;
}

}  // namespace

int main(int argc, char** argv) {
    size_t piece_bytes = 65536;
    unsigned repeat = 5;
    int device = 0;
    std::string path;
    const tools::Flags flags = bench_flags();
    try {
        const tools::ParsedFlags given = flags.parse(std::vector<std::string>(argv + 1, argv + argc));
        if (given.has("--help")) {
            std::cout << flags.help({.usage = "usage: invidx_gpu_pieces_bench FILE.gz [--piece-bytes N] [--repeat R] [--device D]",
                                     .description = "The pieces of a gzip file of one stream decoded on a GPU, a warp a piece, its\n"
                                                    "window unknown, beside one CPU core decoding the same pieces.",
                                     .options_heading = "Options:\n",
                                     .example = "  invidx_gpu_pieces_bench /tmp/shapes/one-stream.warc.gz --piece-bytes 131072\n",
                                     .footer = "Exit codes: 0 done; 1 failed (or the GPU's pieces differ); 2 bad command line.\n"});
            return 0;
        }
        if (auto value = given.value("--piece-bytes")) piece_bytes = tools::positive_integer("--piece-bytes", *value);
        if (auto value = given.value("--repeat")) repeat = static_cast<unsigned>(tools::positive_integer("--repeat", *value));
        if (auto value = given.value("--device")) device = static_cast<int>(tools::unsigned_integer("--device", *value));
        if (given.arguments().size() != 1) throw tools::UsageError("one FILE.gz");
        path = given.arguments().front();
    } catch (const tools::UsageError& error) {
        tools::exit_with_usage_error("invidx_gpu_pieces_bench", error.what());
    }

    try {
        const std::string file = bench::read_whole_file(path);
        ensure(file.size() < (uint64_t{1} << 31), "files of up to 2 GB");
        const std::optional<size_t> header = gzip_header_length(file);
        ensure(header.has_value(), path + " is not gzip");
        const std::vector<PiecePlan> plans = plan_pieces(file, *header, piece_bytes);

        // The CPU's pieces, timed, then resolved in order and checked against the trailer.
        std::vector<DeflatePiece> cpu(plans.size());
        std::vector<double> cpu_seconds;
        for (unsigned r = 0; r < std::min(repeat, 3u); ++r) {
            const auto start = Clock::now();
            for (size_t k = 0; k < plans.size(); ++k) cpu[k] = cpu_piece(file, plans[k], std::move(cpu[k].symbols));
            cpu_seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
        }
        std::string text, window;
        uint64_t expected_bit = uint64_t{*header} * 8;
        size_t redo = 0;
        uint32_t trailer_crc = 0, trailer_size = 0;
        bool ended = false;
        for (size_t k = 0; k < plans.size() && !ended; ++k) {
            DeflatePiece& piece = cpu[k];
            uint64_t start = plans[k].offset * 8 + piece.start_bit;
            // No block start before its stop: passed through, as in a build.
            if (piece.ok && piece.no_block && expected_bit >= plans[k].offset * 8 + piece.end_bit) {
                start = expected_bit;
                piece.end_bit = expected_bit - plans[k].offset * 8;
            }
            if (!piece.ok || start != expected_bit) {
                ++redo;  // decoded again from where the piece before ended, its window known
                const std::string_view bytes = std::string_view(file).substr(plans[k].offset);
                DeflatePieceLimits limits;
                if (plans[k].bounds.has_stop) limits.stop_bit = plans[k].bounds.stop_bit;
                piece = decode_deflate_from(bytes, expected_bit - plans[k].offset * 8, window, limits);
                ensure(piece.ok, "piece " + std::to_string(k) + " does not decode");
            }
            std::string part(piece.symbols.text_size(), '\0');
            ensure(resolve_piece_text(piece.symbols.text(), part.size(), window, part.data()), "a marker before the window");
            text += part;
            window = text.substr(text.size() - std::min<size_t>(text.size(), kDeflateWindowBytes));
            expected_bit = plans[k].offset * 8 + piece.end_bit;
            if (piece.final_block) {
                ended = true;
                ensure(piece.trailer_read, "no trailer");
                trailer_crc = piece.trailer_crc;
                trailer_size = piece.trailer_size;
            }
        }
        ensure(ended, "the stream's final block was not found");
        const uint32_t crc = static_cast<uint32_t>(crc32_z(0, reinterpret_cast<const Bytef*>(text.data()), text.size()));
        ensure(crc == trailer_crc && static_cast<uint32_t>(text.size()) == trailer_size,
               "the pieces' text does not match the gzip trailer");
        size_t without_block = 0;
        for (const DeflatePiece& piece : cpu) without_block += piece.ok && piece.no_block;
        std::printf("%s: %.1f MB compressed, %.1f MB of text, %zu pieces of %zu bytes, %zu without a block start; "
                    "%zu would be decoded again\n",
                    path.c_str(), file.size() / 1e6, text.size() / 1e6, plans.size(), piece_bytes, without_block, redo);

        struct Row {
            std::string what;
            double seconds;
        };
        std::vector<Row> rows;
        std::string gpu_failure;
        try {
            // A piece's room as in builds: one that makes more fails on the GPU (out of room).
            const uint32_t capacity = piece_batch_limits(file.size(), piece_bytes).piece_symbols;
            std::vector<GpuStreamPiece> pieces(plans.size());
            for (size_t k = 0; k < plans.size(); ++k) {
                pieces[k].in_offset = plans[k].offset;
                pieces[k].in_size = static_cast<uint32_t>(file.size() - plans[k].offset);
                pieces[k].out_capacity = capacity;
                pieces[k].out_offset = uint64_t{k} * capacity;
                pieces[k].bounds = plans[k].bounds;
            }
            GpuPieceDecoder decoder(device, file.size(), uint64_t{capacity} * plans.size(), plans.size(),
                                    uint64_t{8} * file.size());
            std::memcpy(decoder.input(), file.data(), file.size());
            const std::vector<inflate::PieceOutcome> outcomes = decoder.decode(file.size(), pieces);  // warm-up, checked
            size_t differ = 0, failed = 0;
            for (size_t k = 0; k < plans.size(); ++k) {
                const inflate::PieceOutcome& o = outcomes[k];
                const DeflatePiece c = cpu_piece(file, plans[k]);
                if (!o.ok) {
                    ++failed;
                    continue;
                }
                const uint16_t* symbols = decoder.text(k);
                if (!c.ok || bool(o.no_block) != c.no_block || o.start_bit != c.start_bit || o.end_bit != c.end_bit ||
                    o.symbols != c.symbols.text_size() ||
                    !std::equal(symbols, symbols + o.symbols, c.symbols.text()))
                    ++differ;
            }
            ensure(differ == 0, std::to_string(differ) + " GPU pieces differ from the CPU's");
            std::printf("GPU pieces not decoded (left to the CPU in a build): %zu of %zu\n", failed, plans.size());
            std::vector<double> whole, kernel, resident;
            for (unsigned r = 0; r < repeat; ++r) {
                const auto start = Clock::now();
                decoder.decode(file.size(), pieces);
                whole.push_back(std::chrono::duration<double>(Clock::now() - start).count());
                kernel.push_back(decoder.last_timings().kernel);
            }
            for (unsigned r = 0; r < repeat; ++r) resident.push_back(decoder.time_resident_kernel());
            rows.push_back({"gpu, resident", median(resident)});
            rows.push_back({"gpu, decode()", median(whole)});
            rows.push_back({"  kernel", median(kernel)});
        } catch (const Error& error) {
            gpu_failure = error.what();
        }
        rows.push_back({"cpu, 1 core", median(cpu_seconds)});
        std::printf("\n%-30s %12s %12s\n", "decoder", "median ms", "GB/s text");
        for (const Row& row : rows)
            std::printf("%-30s %12.3f %12.2f\n", row.what.c_str(), row.seconds * 1e3, text.size() / row.seconds / 1e9);
        if (!gpu_failure.empty()) {
            std::fprintf(stderr, "invidx_gpu_pieces_bench: no GPU rows: %s\n", gpu_failure.c_str());
            return 1;
        }
        return 0;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "invidx_gpu_pieces_bench: %s\n", error.what());
        return 1;
    }
}
