// A piece of one deflate stream decoded without the text before it: how a
// gzip file of one stream (ClueWeb-style WARC.gz, a whole-file .jsonl.gz) is
// inflated on several cores (split_gzip.hpp, "stream pieces").
//
// Deflate blocks refer back up to 32 KiB into text decoded before them, so
// a piece cut from the middle of a stream cannot be decoded to bytes on its
// own. It can be decoded to symbols: a byte of the piece's text is either a
// known byte (0-255) or a marker, 256 + j, for byte j of the 32 KiB window
// that precedes the piece (unknown until the pieces before it are decoded);
// copies copy markers as they copy bytes. Once the window is known, one pass
// replaces the markers (resolve_piece_text). This is the two-stage approach
// of parallel gzip decoders in the literature (pugz, rapidgzip), in our own
// code, on the Huffman decoding of devices/inflate/deflate_member_decoder.hpp.
//
// Where a piece starts: its bytes begin at an arbitrary byte of the stream,
// so its decoder searches bit by bit for the first position where a dynamic
// Huffman block (BTYPE 10) begins: a header whose three codes are valid and
// complete and whose whole block then decodes. A piece ends where the first
// dynamic block at or after the byte where the next piece's bytes begin
// starts (stored and fixed blocks, which the search does not find, are
// decoded on through), so consecutive pieces meet exactly when both found
// the same block; where they do not (a header found that was not one, a
// stream of stored blocks), the caller decodes the piece again from where
// the one before ended, with its window known (split_gzip.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

namespace invidx {

// Marker symbols: 256 + j is byte j (0 the oldest) of the 32 KiB before a piece.
inline constexpr uint32_t kDeflateWindowBytes = 32768;

// A piece's text as symbols: [text_begin, size) of `data` (the window's
// place before it is the decoder's).
struct PieceSymbols {
    std::unique_ptr<uint16_t[]> data;
    size_t capacity = 0;
    size_t text_begin = 0;
    size_t size = 0;
    size_t text_size() const { return size - text_begin; }
    const uint16_t* text() const { return data.get() + text_begin; }
};

struct DeflatePiece {
    bool ok = false;              // decoded from start_bit to end_bit without error
    // ok, but no block starts in the searched bits before the stop: then
    // start_bit = end_bit = the stop, no symbols. The piece holds only the
    // inside of a block that began before it (split_gzip.cpp passes it through).
    bool no_block = false;
    uint64_t start_bit = 0;       // of the piece's first block, in the bytes given
    uint64_t end_bit = 0;         // the boundary where it stopped (or the final block's end)
    PieceSymbols symbols;         // the text: bytes and markers
    // The stream's final block ended in this piece; then its gzip trailer
    // (CRC-32 and ISIZE), when the bytes hold it, and the byte after it.
    bool final_block = false;
    bool trailer_read = false;
    uint32_t trailer_crc = 0;
    uint32_t trailer_size = 0;
    uint64_t after_trailer = 0;   // byte offset in the bytes given
};

struct DeflatePieceLimits {
    // Stop at the first dynamic block that starts at or after this bit
    // (the piece's start too: a piece may hold no block); none: decode to
    // the stream's final block.
    std::optional<uint64_t> stop_bit;
    // Symbols a piece may make before it is refused (128 MB of them: a
    // piece that would expand further, 64 times or more for 1 MiB pieces,
    // is decoded in order by the caller instead, so a gzip bomb costs no
    // worker more than that).
    size_t max_symbols = size_t{64} << 20;
};

// The first gzip member's header at the start of `bytes`: the byte where
// its deflate data starts, or none when the bytes are no gzip header.
std::optional<size_t> gzip_header_length(std::string_view bytes);

// Decodes from bit `start_bit` of `bytes` (a block boundary) with the text
// before it `window` (at most its last 32 KiB are used; empty at a member's
// start): every symbol a byte. ok false on any error, including running
// out of bytes before the stop.
// `buffer`: a piece's symbols no longer needed, whose memory is reused.
DeflatePiece decode_deflate_from(std::string_view bytes, uint64_t start_bit, std::string_view window,
                                 const DeflatePieceLimits& limits, PieceSymbols buffer = {});

// Decodes from the first dynamic block found at or after bit `search_bit`
// (searching no further than `search_end_bit`, nor than the stop), its
// window unknown: symbols may be markers. ok with no_block where none is
// found before a stop within the bytes; ok false where none is found
// otherwise, or decoding fails.
DeflatePiece decode_deflate_piece(std::string_view bytes, uint64_t search_bit, uint64_t search_end_bit,
                                  const DeflatePieceLimits& limits, PieceSymbols buffer = {});

// The piece's text with its markers replaced from `window` (the 32 KiB of
// text before it; shorter only at a stream's start, where no marker may
// refer before it): written to out[0, count). False when a marker refers before
// the window's start.
bool resolve_piece_text(const uint16_t* symbols, size_t count, std::string_view window, char* out);

}  // namespace invidx
