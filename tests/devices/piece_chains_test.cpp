// Stream pieces' window markers resolved through the pieces before them
// (devices/inflate/piece_chains.hpp): pieces decoded by the warp's decoder
// (taken on the host), chained by their outcomes, give the stream's own
// text wherever a marker resolves, and stop at a piece whose chain breaks.
#include <doctest/doctest.h>

#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "devices/inflate/host_lanes.hpp"
#include "devices/inflate/piece_chains.hpp"
#include "support/stream_pieces.hpp"

namespace {

using namespace invidx;
using namespace invidx::testing;
using namespace invidx::inflate;

// A stream's pieces decoded into one batch of rooms, as a GPU batch holds them.
struct Batch {
    std::vector<uint16_t> rooms;
    std::vector<ChainedRoom> pieces;
    std::vector<PieceIdentity> ids;
    std::vector<PieceOutcome> outcomes;
};

Batch decode_batch(const std::string& file, size_t piece_bytes) {
    const std::optional<size_t> header = gzip_header_length(file);
    REQUIRE(header);
    const uint32_t capacity = test_piece_capacity(piece_bytes);
    const auto tables = std::make_unique<DecoderTables>();
    Batch b;
    for (size_t begin = 0, k = 0; begin < file.size(); begin += piece_bytes, ++k) {
        PieceBounds bounds;
        bounds.search_bit = begin == 0 ? uint64_t{*header} * 8 : 0;
        bounds.search_end_bit = uint64_t{file.size() - begin} * 8;
        if (begin + piece_bytes < file.size()) {
            bounds.stop_bit = uint64_t{piece_bytes} * 8;
            bounds.has_stop = 1;
        }
        ChainedRoom room;
        room.offset = b.rooms.size();
        b.rooms.resize(b.rooms.size() + capacity);
        HostPieceLanes lanes;
        const PieceOutcome o = decode_piece_in_lockstep(reinterpret_cast<const unsigned char*>(file.data()) + begin,
                                                        static_cast<uint32_t>(file.size() - begin), bounds,
                                                        b.rooms.data() + room.offset, capacity, *tables, lanes);
        REQUIRE(o.ok);
        room.symbols = o.symbols;
        b.pieces.push_back(room);
        b.ids.push_back(PieceIdentity{7, k, uint64_t{begin} * 8});
        b.outcomes.push_back(o);
        if (o.final_block) break;
    }
    return b;
}

struct Resolved {
    size_t symbols = 0, unresolved = 0, wrong = 0;
};

// Every symbol of every piece resolved through its chain, against the
// stream's text: each piece with text holds the text after the one before.
Resolved resolve_all(const Batch& b, const std::string& text, uint32_t max_hops) {
    Resolved r;
    size_t at = 0;
    for (uint32_t k = 0; k < b.pieces.size(); ++k) {
        const ChainedRoom& p = b.pieces[k];
        if (b.outcomes[k].no_block) continue;
        for (uint32_t i = 0; i < p.symbols; ++i, ++at) {
            ++r.symbols;
            uint32_t hops = 0;
            const uint32_t byte = resolve_through_chain(b.rooms.data(), b.pieces.data(), k,
                                                        b.rooms[p.offset + kPieceWindowSymbols + i], max_hops, hops);
            if (byte == kUnresolved) {
                ++r.unresolved;
            } else if (at >= text.size() || static_cast<unsigned char>(text[at]) != byte) {
                ++r.wrong;
            }
        }
    }
    CHECK(at == text.size());
    return r;
}

TEST_CASE("piece chains: pieces chained by their outcomes resolve every marker to the stream's text") {
    std::mt19937 random(31);
    const std::string text = web_text(random, 1'500'000);
    for (const int level : {1, 6, 9}) {
        CAPTURE(level);
        MemberOptions options;
        options.level = level;
        const std::string file = member(text, options);
        Batch b = decode_batch(file, 20'000);
        chain_pieces(b.ids.data(), b.outcomes.data(), b.outcomes.size(), b.pieces.data());
        size_t with_text = 0, chained = 0;
        for (size_t k = 0; k < b.pieces.size(); ++k) {
            if (b.outcomes[k].no_block) continue;
            ++with_text;
            chained += b.pieces[k].before != kNoPieceBefore;
        }
        CHECK(with_text > 10);
        CHECK(chained == with_text - 1);  // all but the stream's first piece
        const Resolved all = resolve_all(b, text, 1'000'000);
        CHECK(all.wrong == 0);
        CHECK(all.unresolved == 0);  // the first piece has no window to name
        // A bound on the hops leaves some markers, and resolves the rest right.
        const Resolved near = resolve_all(b, text, 1);
        CHECK(near.wrong == 0);
        CHECK(near.unresolved > 0);
    }
}

TEST_CASE("piece chains: a piece not starting where the one before ended, a missing index or another file breaks the chain") {
    std::mt19937 random(32);
    const std::string text = web_text(random, 1'000'000);
    const std::string file = member(text);
    const Batch decoded = decode_batch(file, 20'000);
    std::vector<size_t> with_text;
    for (size_t k = 0; k < decoded.pieces.size(); ++k)
        if (!decoded.outcomes[k].no_block) with_text.push_back(k);
    REQUIRE(with_text.size() > 8);
    const size_t a = with_text[3], b = with_text[5], c = with_text[7];

    Batch broken = decoded;
    broken.outcomes[a].start_bit += 1;  // a block start the one before did not end at
    broken.ids[b].index += 1;           // an index missing before it
    broken.ids[c].file = 8;             // another file's piece
    chain_pieces(broken.ids.data(), broken.outcomes.data(), broken.outcomes.size(), broken.pieces.data());
    CHECK(broken.pieces[a].before == kNoPieceBefore);
    CHECK(broken.pieces[b].before == kNoPieceBefore);
    CHECK(broken.pieces[c].before == kNoPieceBefore);
    CHECK(broken.pieces[with_text[4]].before == with_text[3]);  // a ended where it began: the chain holds
    // Where the breaks cut chains, markers stay unresolved; the rest resolve right.
    broken.outcomes[a].start_bit -= 1;
    const Resolved r = resolve_all(broken, text, 1'000'000);
    CHECK(r.wrong == 0);
    CHECK(r.unresolved > 0);
}

}  // namespace
