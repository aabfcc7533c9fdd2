#include "nodes/decompress/deflate_piece.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "devices/inflate/deflate_member_decoder.hpp"
#include "devices/inflate/dynamic_block_search.hpp"

namespace invidx {
namespace {

using namespace invidx::inflate;

constexpr Crc32Tables kCrcTables = make_crc32_tables();
// Room a step of the loop may write past the text's end: a longest match
// and the last step of its copy sixteen symbols at a time (three literals
// are less).
constexpr size_t kSlack = 258 + 16;

// Symbols [0, prefix) are the window's place: markers 256 + j for an unknown
// window, the window's bytes for a known one.
class SymbolWriter {
public:
    SymbolWriter(PieceSymbols& symbols, size_t expected, size_t max_symbols)
        : s_(symbols), max_(max_symbols) {
        reserve(expected);
    }
    // Room for one more symbol's worth (a literal or a longest match). False past the limit.
    bool make_room() {
        if (s_.size + kSlack <= s_.capacity) return true;
        if (s_.size - s_.text_begin > max_) return false;
        reserve(s_.capacity * 2);
        return true;
    }
    bool make_room(size_t count) {
        while (s_.size + count + kSlack > s_.capacity) {
            if (s_.size - s_.text_begin + count > max_) return false;
            reserve(s_.capacity * 2);
        }
        return true;
    }

private:
    void reserve(size_t capacity) {
        capacity = std::max(capacity, s_.size + kSlack);
        if (capacity <= s_.capacity) return;
        std::unique_ptr<uint16_t[]> grown(new uint16_t[capacity]);
        if (s_.size > 0) std::memcpy(grown.get(), s_.data.get(), s_.size * sizeof(uint16_t));
        s_.data = std::move(grown);
        s_.capacity = capacity;
    }
    PieceSymbols& s_;
    size_t max_;
};

// out[n, n + length) = the `length` symbols from `distance` back (distance
// <= n), overlapping as deflate's copies do. There is kSlack room past it.
inline void copy_symbols(uint16_t* out, size_t n, uint32_t distance, uint32_t length) {
    uint16_t* to = out + n;
    const uint16_t* from = to - distance;
    // Sixteen or eight symbols a step, each step's source written before
    // it; the last step may write past length into the slack.
    if (distance >= 16) {
        for (uint32_t i = 0; i < length; i += 16) std::memcpy(to + i, from + i, 16 * sizeof(uint16_t));
        return;
    }
    if (distance >= 8) {
        for (uint32_t i = 0; i < length; i += 8) std::memcpy(to + i, from + i, 8 * sizeof(uint16_t));
        return;
    }
    for (uint32_t i = 0; i < length; ++i) to[i] = from[i];
}

// One Huffman block's symbols after its header, up to its end-of-block code.
// The hot loop: the text's end and the reader's state stay in locals.
bool decode_huffman_symbols(BitReader& reader, const DecoderTables& t, PieceSymbols& s, SymbolWriter& writer) {
    BitReader r = reader;
    uint16_t* out = s.data.get();
    size_t n = s.size;
    size_t room_end = s.capacity - kSlack;  // n may reach this before the next check grows the buffer
    bool ok = false;
    for (;;) {
        if (n > room_end) {
            s.size = n;
            if (!writer.make_room()) break;
            out = s.data.get();
            room_end = s.capacity - kSlack;
        }
        if (!r.refill()) break;
        uint32_t e = read_litlen_entry(r, t);
        if (entry_kind(e) == kLiteral) {
            out[n++] = static_cast<uint16_t>(entry_value(e));
            // 41 bits are left after a refill and one code, 26 after two:
            // two more codes' worth.
            e = read_litlen_entry(r, t);
            if (entry_kind(e) == kLiteral) {
                out[n++] = static_cast<uint16_t>(entry_value(e));
                e = read_litlen_entry(r, t);
                if (entry_kind(e) == kLiteral) {
                    out[n++] = static_cast<uint16_t>(entry_value(e));
                    continue;
                }
            }
            if (!r.refill()) break;
        }
        const uint32_t kind = entry_kind(e);
        if (kind == kEnd) {
            ok = true;
            break;
        }
        if (kind != kLength) break;
        const uint32_t length = entry_value(e) + r.take(entry_extra(e));
        uint32_t d = t.dist[r.peek(kDistPrimaryBits)];
        if (entry_kind(d) == kLink) {
            r.drop(kDistPrimaryBits);
            d = t.dist[entry_value(d) + r.peek(entry_extra(d))];
        }
        r.drop(entry_bits(d));
        if (entry_kind(d) != kLength) break;
        const uint32_t distance = entry_value(d) + r.take(entry_extra(d));
        if (distance > n) break;  // before the window's start
        copy_symbols(out, n, distance, length);
        n += length;
    }
    s.size = n;
    reader = r;
    return ok;
}

BitReader reader_at(std::string_view bytes, uint64_t bit) {
    BitReader r{reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<uint32_t>(bytes.size()),
                static_cast<uint32_t>(bit >> 3), 0, 0};
    r.refill();
    r.drop(static_cast<uint32_t>(bit & 7));
    return r;
}

enum class BlockResult { ok, final_block, failed };

// The block at the reader: header and body.
BlockResult decode_block(BitReader& r, std::string_view bytes, DecoderTables& t, PieceSymbols& s,
                         SymbolWriter& writer) {
    const auto* in = reinterpret_cast<const unsigned char*>(bytes.data());
    BlockHeader header{};
    if (read_block_header(r, in, 0, std::numeric_limits<uint32_t>::max(), t, header) != InflateStatus::ok)
        return BlockResult::failed;
    if (header.stored) {
        if (!writer.make_room(header.stored_length)) return BlockResult::failed;
        for (uint32_t i = 0; i < header.stored_length; ++i) s.data[s.size + i] = in[r.pos + i];
        s.size += header.stored_length;
        r.pos += header.stored_length;
    } else if (!decode_huffman_symbols(r, t, s, writer)) {
        return BlockResult::failed;
    }
    if (r.past_end()) return BlockResult::failed;
    return header.final_block ? BlockResult::final_block : BlockResult::ok;
}

void finish_final_block(const BitReader& r, std::string_view bytes, DeflatePiece& piece);

// Blocks from the reader's position on (a block boundary) until the stop
// or the final block; the piece's symbols already hold the window's place
// (and, from the search, possibly its first block).
void decode_blocks(BitReader& r, std::string_view bytes, DecoderTables& t, SymbolWriter& writer,
                   const DeflatePieceLimits& limits, DeflatePiece& piece) {
    for (;;) {
        const uint64_t at = r.consumed_bits();
        // Only a dynamic block ends a piece: the next piece's search finds
        // no other kind, so a stored or fixed block (a flush point's empty
        // stored block) at the stop is decoded here.
        if (limits.stop_bit && at >= *limits.stop_bit && r.refill() && (r.peek(3) & 6) == 4) {
            piece.end_bit = at;
            piece.ok = true;
            return;
        }
        const BlockResult result = decode_block(r, bytes, t, piece.symbols, writer);
        if (result == BlockResult::failed) return;
        if (result == BlockResult::final_block) break;
    }
    finish_final_block(r, bytes, piece);
}

// The stream's final block ended at the reader: its gzip trailer follows.
void finish_final_block(const BitReader& r, std::string_view bytes, DeflatePiece& piece) {
    piece.final_block = true;
    piece.end_bit = r.consumed_bits();
    const uint64_t trailer = (piece.end_bit + 7) / 8;
    if (trailer + 8 <= bytes.size()) {
        const auto* in = reinterpret_cast<const unsigned char*>(bytes.data());
        piece.trailer_read = true;
        piece.trailer_crc = load_le32(in + trailer);
        piece.trailer_size = load_le32(in + trailer + 4);
        piece.after_trailer = trailer + 8;
    }
    piece.ok = true;
}

// The piece from `bit`, where a dynamic block's header passed the filter:
// the header read whole and its block decoded whole before the piece
// starts there. False (the piece untouched but for its symbols) when they
// do not decode.
bool start_piece_at(uint64_t bit, std::string_view bytes, DecoderTables& t, SymbolWriter& writer,
                    const DeflatePieceLimits& limits, DeflatePiece& piece) {
    PieceSymbols& s = piece.symbols;
    BitReader r = reader_at(bytes, bit);
    s.size = s.text_begin;
    const BlockResult first = decode_block(r, bytes, t, s, writer);
    if (first == BlockResult::failed) return false;
    piece.start_bit = bit;
    if (first == BlockResult::final_block) {
        finish_final_block(r, bytes, piece);
    } else {
        decode_blocks(r, bytes, t, writer, limits, piece);
    }
    return true;
}

size_t expected_symbols(std::string_view bytes, uint64_t from_bit, const DeflatePieceLimits& limits) {
    const uint64_t to_bit = limits.stop_bit ? std::min<uint64_t>(*limits.stop_bit, bytes.size() * 8) : bytes.size() * 8;
    const uint64_t compressed = to_bit > from_bit ? (to_bit - from_bit) / 8 : 0;
    // Web text inflates 4-6x: room for 8x, so that a piece rarely grows (a copy of all it holds).
    return static_cast<size_t>(std::min<uint64_t>(compressed * 8 + 65536, limits.max_symbols));
}

}  // namespace

std::optional<size_t> gzip_header_length(std::string_view bytes) {
    InflateStatus status = InflateStatus::ok;
    const uint32_t size = static_cast<uint32_t>(std::min<size_t>(bytes.size(), std::numeric_limits<uint32_t>::max()));
    const uint32_t length =
        parse_member_header(reinterpret_cast<const unsigned char*>(bytes.data()), size, kCrcTables.t, &status);
    if (length == 0) return std::nullopt;
    return length;
}

DeflatePiece decode_deflate_from(std::string_view bytes, uint64_t start_bit, std::string_view window,
                                 const DeflatePieceLimits& limits, PieceSymbols buffer) {
    DeflatePiece piece;
    piece.symbols = std::move(buffer);
    piece.symbols.size = piece.symbols.text_begin = 0;
    piece.start_bit = start_bit;
    if (bytes.size() >= std::numeric_limits<uint32_t>::max() - 64 || start_bit > bytes.size() * 8) return piece;
    if (window.size() > kDeflateWindowBytes) window.remove_prefix(window.size() - kDeflateWindowBytes);
    PieceSymbols& s = piece.symbols;
    SymbolWriter writer(s, window.size() + expected_symbols(bytes, start_bit, limits), limits.max_symbols);
    for (size_t i = 0; i < window.size(); ++i) s.data[i] = static_cast<unsigned char>(window[i]);
    s.text_begin = s.size = window.size();
    auto tables = std::make_unique<DecoderTables>();
    tables->fixed_built = false;
    BitReader r = reader_at(bytes, start_bit);
    decode_blocks(r, bytes, *tables, writer, limits, piece);
    return piece;
}

DeflatePiece decode_deflate_piece(std::string_view bytes, uint64_t search_bit, uint64_t search_end_bit,
                                  const DeflatePieceLimits& limits, PieceSymbols buffer) {
    DeflatePiece piece;
    piece.symbols = std::move(buffer);
    piece.symbols.size = piece.symbols.text_begin = 0;
    if (bytes.size() >= std::numeric_limits<uint32_t>::max() - 64) return piece;
    const auto* in = reinterpret_cast<const unsigned char*>(bytes.data());
    PieceSymbols& s = piece.symbols;
    SymbolWriter writer(s, kDeflateWindowBytes + expected_symbols(bytes, search_bit, limits), limits.max_symbols);
    for (uint32_t j = 0; j < kDeflateWindowBytes; ++j) s.data[j] = static_cast<uint16_t>(256 + j);
    s.text_begin = s.size = kDeflateWindowBytes;
    auto tables = std::make_unique<DecoderTables>();
    tables->fixed_built = false;
    uint64_t end = std::min<uint64_t>(search_end_bit, bytes.size() * 8);
    // The search ends at the stop: a block starting past it is the next
    // piece's to find, and a piece without one holds no block start at all.
    const bool stops = limits.stop_bit && *limits.stop_bit <= end;
    if (stops) end = *limits.stop_bit;
    for (uint64_t group = search_bit; group < end; group += 32) {
        // The positions of 32 at once whose type and counts pass (their
        // fields lie in the 57 bits from `group`), then each such one.
        const uint64_t group_end = std::min(group + 32, end);
        for (uint64_t candidates = header_candidates(bits_at(in, bytes.size(), group)); candidates != 0;
             candidates &= candidates - 1) {
            const uint64_t bit = group + static_cast<uint64_t>(std::countr_zero(candidates));
            if (bit >= group_end) break;
            if (could_start_dynamic_block(in, bytes.size(), bit) && start_piece_at(bit, bytes, *tables, writer, limits, piece))
                return piece;
        }
    }
    if (stops) {
        s.size = s.text_begin;
        piece.start_bit = piece.end_bit = *limits.stop_bit;
        piece.no_block = true;
        piece.ok = true;
    }
    return piece;
}

bool resolve_piece_text(const uint16_t* symbols, size_t count, std::string_view window, char* out) {
    if (window.size() >= kDeflateWindowBytes) {
        // Every symbol through one table: bytes map to themselves, markers
        // to the window's bytes (markers are too common for a branch).
        thread_local unsigned char table[256 + kDeflateWindowBytes];
        for (uint32_t b = 0; b < 256; ++b) table[b] = static_cast<unsigned char>(b);
        std::memcpy(table + 256, window.data() + window.size() - kDeflateWindowBytes, kDeflateWindowBytes);
        for (size_t i = 0; i < count; ++i) out[i] = static_cast<char>(table[symbols[i]]);
        return true;
    }
    // A shorter window (the stream's first 32 KiB) lacks the oldest bytes
    // a marker could name.
    const size_t missing = kDeflateWindowBytes - window.size();
    for (size_t i = 0; i < count; ++i) {
        const uint16_t symbol = symbols[i];
        if (symbol < 256) {
            out[i] = static_cast<char>(symbol);
            continue;
        }
        const size_t j = symbol - 256u;
        if (j < missing) return false;
        out[i] = window[j - missing];
    }
    return true;
}

}  // namespace invidx
