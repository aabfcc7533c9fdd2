// How far the window's markers of one-stream pieces reach back: what
// resolving pieces on a GPU, run by run, could leave to the cores.
//
// A gzip file of one deflate stream is cut every --piece-bytes compressed
// bytes and each piece decoded as the decompress node's search does
// (decode_deflate_piece: text bytes, and markers 256 + j for byte j of the
// unknown 32 KiB window before the piece). The pieces but the file's first
// (which a build decodes on the CPU, from the stream's start) are then
// taken in runs of --run consecutive pieces with a block start (as a batch
// would hold the pieces of its read blocks), and every marker of a run's
// pieces but its first is followed back through the pieces before it (a
// marker of piece k names a symbol of piece k-1's last 32 KiB, window
// included) until it meets a byte, or the run's first piece's window: a
// marker there is left for the cores (they know that window only once the
// pieces before the run are resolved). Prints, per run length, the pieces whose text the
// run resolves whole, the symbols left, and how many pieces back the
// markers reach.
//
//   invidx_piece_chains_bench FILE.gz [--piece-bytes N] [--run R]...

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "bench/whole_file.hpp"
#include "devices/inflate/piece_chains.hpp"
#include "invidx/error.hpp"
#include "nodes/decompress/deflate_piece.hpp"
#include "tools/common/flags.hpp"

namespace {

using namespace invidx;

// The pieces with a block start, each its window's place and its text
// symbols, back to back, as a GPU batch holds them in their rooms.
struct Rooms {
    std::vector<uint16_t> symbols;
    std::vector<inflate::ChainedRoom> pieces;
};

Rooms decode_pieces(const std::string& file, size_t piece_bytes) {
    const std::optional<size_t> header = gzip_header_length(file);
    ensure(header.has_value(), "not gzip");
    Rooms rooms;
    for (uint64_t offset = 0; offset < file.size(); offset += piece_bytes) {
        DeflatePieceLimits limits;
        if (offset + piece_bytes < file.size()) limits.stop_bit = uint64_t{piece_bytes} * 8;
        const DeflatePiece piece = decode_deflate_piece(std::string_view(file).substr(offset),
                                                        offset == 0 ? uint64_t{*header} * 8 : 0, file.size() * 8, limits);
        ensure(piece.ok, "piece at byte " + std::to_string(offset) + " does not decode");
        if (piece.no_block) continue;  // inside the block the piece before ended in: no text of its own
        inflate::ChainedRoom room;
        room.offset = rooms.symbols.size();
        room.symbols = static_cast<uint32_t>(piece.symbols.text_size());
        for (uint32_t j = 0; j < kDeflateWindowBytes; ++j) rooms.symbols.push_back(static_cast<uint16_t>(256 + j));
        rooms.symbols.insert(rooms.symbols.end(), piece.symbols.text(), piece.symbols.text() + piece.symbols.text_size());
        rooms.pieces.push_back(room);
        if (piece.final_block) break;
    }
    return rooms;
}

struct Chains {
    size_t pieces = 0;          // not the first of their run
    size_t resolved_whole = 0;  // of those, every marker met a byte within the run
    uint64_t symbols = 0, markers = 0, left = 0;
    uint64_t reach[9] = {};     // markers by pieces back to their byte: 1..8, more
    uint64_t furthest = 0;
};

// Each run's pieces but its first chained to the piece before them, every
// marker of theirs followed back with resolve_through_chain.
Chains follow_markers(Rooms& rooms, size_t run) {
    Chains c;
    const size_t count = rooms.pieces.size();
    // Piece 0 is the file's first: runs start at piece 1.
    const auto first_of_run = [&](size_t k) { return k == 0 || (k - 1) % run == 0; };
    for (size_t k = 0; k < count; ++k)
        rooms.pieces[k].before = first_of_run(k) ? inflate::kNoPieceBefore : static_cast<uint32_t>(k - 1);
    for (uint32_t k = 0; k < count; ++k) {
        if (first_of_run(k)) continue;
        ++c.pieces;
        const inflate::ChainedRoom& p = rooms.pieces[k];
        uint64_t left = 0;
        for (uint32_t i = 0; i < p.symbols; ++i) {
            ++c.symbols;
            const uint16_t s = rooms.symbols[p.offset + kDeflateWindowBytes + i];
            if (s < 256) continue;
            ++c.markers;
            uint32_t back = 0;
            if (inflate::resolve_through_chain(rooms.symbols.data(), rooms.pieces.data(), k, s, UINT32_MAX, back) ==
                inflate::kUnresolved) {
                ++left;
                continue;
            }
            ++c.reach[std::min<uint64_t>(back, 9) - 1];
            c.furthest = std::max<uint64_t>(c.furthest, back);
        }
        c.left += left;
        if (left == 0) ++c.resolved_whole;
    }
    return c;
}

}  // namespace

int main(int argc, char** argv) {
    tools::Flags flags;
    flags.add({.name = "--piece-bytes", .value_name = "N", .help = "compressed bytes a piece (default 32768)"});
    flags.add({.name = "--run", .value_name = "R", .help = "pieces a run (repeatable; default 8, 32, 128, 512)",
               .repeats = tools::Repeats::kCollect});
    flags.add({.name = "--help", .help = "this help", .alias = "-h", .stops_parsing = true});
    size_t piece_bytes = 32768;
    std::vector<size_t> runs;
    std::string path;
    try {
        const tools::ParsedFlags given = flags.parse(std::vector<std::string>(argv + 1, argv + argc));
        if (given.has("--help")) {
            std::cout << flags.help({.usage = "usage: invidx_piece_chains_bench FILE.gz [--piece-bytes N] [--run R]...",
                                     .description = "How far back the window markers of a one-stream gzip file's pieces reach:\n"
                                                    "what resolving runs of pieces on a GPU would leave to the cores.",
                                     .options_heading = "Options:\n",
                                     .example = "  invidx_piece_chains_bench /tmp/one.warc.gz --piece-bytes 32768 --run 128\n",
                                     .footer = "Exit codes: 0 done; 1 failed; 2 bad command line.\n"});
            return 0;
        }
        if (auto value = given.value("--piece-bytes")) piece_bytes = tools::positive_integer("--piece-bytes", *value);
        for (const std::string& value : given.values("--run")) runs.push_back(tools::positive_integer("--run", value));
        if (given.arguments().size() != 1) throw tools::UsageError("one FILE.gz");
        path = given.arguments().front();
    } catch (const tools::UsageError& error) {
        tools::exit_with_usage_error("invidx_piece_chains_bench", error.what());
    }
    if (runs.empty()) runs = {8, 32, 128, 512};
    try {
        const std::string file = bench::read_whole_file(path);
        Rooms rooms = decode_pieces(file, piece_bytes);
        std::printf("%s: %.1f MB compressed, %zu pieces of %zu bytes with a block start\n\n", path.c_str(), file.size() / 1e6,
                    rooms.pieces.size(), piece_bytes);
        std::printf("| run | pieces (not first) | resolved whole | markers of symbols | left to the cores | back 1 | 2 | 3-4 | 5-8 | more | furthest |\n");
        std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (const size_t run : runs) {
            const Chains c = follow_markers(rooms, run);
            const double m = std::max<double>(c.markers, 1);
            std::printf("| %zu | %zu | %zu (%.1f%%) | %.1f%% | %.3f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.2f%% | %lu |\n", run,
                        c.pieces, c.resolved_whole, 100.0 * c.resolved_whole / std::max<size_t>(c.pieces, 1),
                        100.0 * c.markers / std::max<uint64_t>(c.symbols, 1), 100.0 * c.left / std::max<uint64_t>(c.symbols, 1),
                        100.0 * c.reach[0] / m, 100.0 * c.reach[1] / m, 100.0 * (c.reach[2] + c.reach[3]) / m,
                        100.0 * (c.reach[4] + c.reach[5] + c.reach[6] + c.reach[7]) / m, 100.0 * c.reach[8] / m,
                        static_cast<unsigned long>(c.furthest));
        }
    } catch (const Error& error) {
        std::fprintf(stderr, "invidx_piece_chains_bench: %s\n", error.what());
        return 1;
    }
    return 0;
}
