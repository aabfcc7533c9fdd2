// Batches of gzip members for the batch inflaters (devices/gpu_inflate.hpp):
// texts of several kinds, members written by zlib (every level and
// strategy) and libdeflate where the build has it, damaged members, and
// batches laid out at uneven offsets with each member's text beside it.
#pragma once

#include <doctest/doctest.h>
#include <zlib.h>
#if defined(INVIDX_HAVE_LIBDEFLATE)
#include <libdeflate.h>
#endif

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "devices/gpu_inflate.hpp"

namespace invidx::testing {

inline std::string random_bytes(std::mt19937& random, size_t size) {
    std::string bytes(size, '\0');
    for (char& c : bytes) c = static_cast<char>(random() & 0xFF);
    return bytes;
}

// Bytes whose frequencies halve from one value to the next: Huffman codes
// of up to 15 bits, past the tables' first level.
inline std::string skewed_bytes(std::mt19937& random, size_t size) {
    std::string bytes(size, '\0');
    for (char& c : bytes) c = static_cast<char>('a' + __builtin_ctz(static_cast<uint32_t>(random()) | 0x40000u));
    return bytes;
}

// HTML-ish pages: tags, attributes and words drawn with a skew, the kind of
// text a crawl's records hold.
inline std::string page_text(std::mt19937& random, size_t size) {
    static const char* const words[] = {"the", "of", "and", "index", "search", "query", "posting", "list", "document",
                                        "gzip", "member", "record", "crawl", "common", "text", "page", "link", "http",
                                        "www", "example", "inverted", "compression", "deflate", "huffman", "table"};
    constexpr size_t word_count = sizeof words / sizeof words[0];
    std::string text = "<!DOCTYPE html>\n<html><head><title>";
    while (text.size() < size) {
        const uint32_t r = random();
        const size_t w = std::min<size_t>(word_count - 1, static_cast<size_t>(__builtin_ctz(r | 0x1000000u) * 2 + (r >> 28) % 2));
        switch ((r >> 24) % 16) {
            case 0: text += "</p>\n<p class=\"c"; text += std::to_string(r % 97); text += "\">"; break;
            case 1: text += "<a href=\"https://www."; text += words[w]; text += ".example/"; text += std::to_string(r % 100000); text += "\">"; break;
            case 2: text += "</a> "; break;
            case 3: text += std::to_string(r % 1000000); text += ' '; break;
            default: text += words[w]; text += ' ';
        }
    }
    text.resize(size);
    return text;
}

struct ZlibMember {
    int level = 6;
    int strategy = Z_DEFAULT_STRATEGY;
    bool header_fields = false;  // FEXTRA, FNAME, FCOMMENT, FHCRC
};

// One gzip member of `text` written by zlib.
inline std::string zlib_member(std::string_view text, ZlibMember options = {}) {
    z_stream z{};
    REQUIRE(deflateInit2(&z, options.level, Z_DEFLATED, 15 + 16, 8, options.strategy) == Z_OK);
    std::string name = "page.html", comment = "generated", extra = "ab\x04\x00wxyz";
    gz_header header{};
    if (options.header_fields) {
        header.name = reinterpret_cast<Bytef*>(name.data());
        header.comment = reinterpret_cast<Bytef*>(comment.data());
        header.extra = reinterpret_cast<Bytef*>(extra.data());
        header.extra_len = static_cast<uInt>(extra.size());
        header.hcrc = 1;
        REQUIRE(deflateSetHeader(&z, &header) == Z_OK);
    }
    std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

#if defined(INVIDX_HAVE_LIBDEFLATE)
// One gzip member of `text` written by libdeflate (levels 0 to 12).
inline std::string libdeflate_member(std::string_view text, int level) {
    libdeflate_compressor* compressor = libdeflate_alloc_compressor(level);
    REQUIRE(compressor != nullptr);
    std::string out(libdeflate_gzip_compress_bound(compressor, text.size()), '\0');
    const size_t size = libdeflate_gzip_compress(compressor, text.data(), text.size(), out.data(), out.size());
    libdeflate_free_compressor(compressor);
    REQUIRE(size > 0);
    out.resize(size);
    return out;
}
#endif

// Whether zlib's inflate takes `member` whole (CRC and length included).
inline bool zlib_accepts(std::string_view member) {
    z_stream z{};
    if (inflateInit2(&z, 15 + 16) != Z_OK) return false;
    std::string out(1 << 16, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(member.data()));
    z.avail_in = static_cast<uInt>(member.size());
    int status;
    do {
        z.next_out = reinterpret_cast<Bytef*>(out.data());
        z.avail_out = static_cast<uInt>(out.size());
        status = ::inflate(&z, Z_NO_FLUSH);  // zlib's, not namespace invidx::inflate
    } while (status == Z_OK && z.avail_in > 0);
    while (status == Z_OK) {  // input used up: output may still be pending
        z.next_out = reinterpret_cast<Bytef*>(out.data());
        z.avail_out = static_cast<uInt>(out.size());
        status = ::inflate(&z, Z_FINISH);
        if (status == Z_BUF_ERROR) break;
    }
    const bool whole = status == Z_STREAM_END && z.avail_in == 0;
    inflateEnd(&z);
    return whole;
}

// The trailer's ISIZE: what a caller reads to size a member's text.
inline uint32_t isize_of(std::string_view member) {
    if (member.size() < 4) return 0;
    const auto* p = reinterpret_cast<const unsigned char*>(member.data() + member.size() - 4);
    return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

// Deflate data written bit by bit (first bit lowest), for hand-made blocks.
struct DeflateBits {
    std::string bytes;
    uint32_t pending = 0, pending_bits = 0;
    void put(uint32_t value, uint32_t bits) {  // an integer field, low bit first
        for (uint32_t i = 0; i < bits; ++i) put_bit((value >> i) & 1);
    }
    void put_code(uint32_t code, uint32_t bits) {  // a Huffman code, first bit most significant
        for (uint32_t i = bits; i-- > 0;) put_bit((code >> i) & 1);
    }
    void put_bit(uint32_t bit) {
        pending |= bit << pending_bits;
        if (++pending_bits == 8) flush();
    }
    void flush() {
        if (pending_bits == 0) return;
        bytes += static_cast<char>(pending);
        pending = pending_bits = 0;
    }
};

// A member of hand-made deflate data: a plain header, the data, and a
// trailer for `text` (what the data should decode to).
inline std::string member_of_deflate(DeflateBits bits, std::string_view text) {
    bits.flush();
    std::string out("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10);
    out += bits.bytes;
    const uint32_t crc = static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size())));
    const uint32_t size = static_cast<uint32_t>(text.size());
    for (int i = 0; i < 4; ++i) out += static_cast<char>((crc >> (8 * i)) & 0xFF);
    for (int i = 0; i < 4; ++i) out += static_cast<char>((size >> (8 * i)) & 0xFF);
    return out;
}

// Members laid out in one input at uneven offsets, each text at its place
// in the output, as a decompress node fills a GpuInflater's buffers.
struct InflateBatch {
    std::string input;
    std::vector<InflateMember> members;
    std::vector<std::string> texts;  // what each member holds (damaged ones: what it held)
    uint64_t output_bytes = 0;

    // `out_size` defaults to the trailer's ISIZE.
    void add(std::string_view member, std::string text, size_t gap = 0, int64_t out_size = -1) {
        input.append(gap, '\x5a');
        InflateMember m;
        m.in_offset = input.size();
        m.in_size = static_cast<uint32_t>(member.size());
        m.out_offset = output_bytes + gap % 7;
        m.out_size = out_size < 0 ? isize_of(member) : static_cast<uint32_t>(out_size);
        input += member;
        output_bytes = m.out_offset + m.out_size;
        members.push_back(m);
        texts.push_back(std::move(text));
    }
};

struct HostInflated {
    std::string output;
    std::vector<InflateOutcome> outcomes;
};

inline HostInflated inflate_on_host(const InflateBatch& batch) {
    HostInflated out;
    out.output.assign(batch.output_bytes, '\0');
    out.outcomes.resize(batch.members.size());
    inflate_members_on_host(batch.input.data(), batch.members.data(), batch.members.size(), out.output.data(),
                            out.outcomes.data());
    return out;
}

// The text member i decoded to in `output`.
inline std::string_view text_of(const InflateBatch& batch, const char* output, size_t i) {
    return std::string_view(output + batch.members[i].out_offset, batch.members[i].out_size);
}

// The good members of many kinds: every zlib level and strategy, header
// fields, empty and 1-byte texts, 300 KiB of random bytes and of pages,
// long codes, libdeflate's members; at uneven offsets.
inline InflateBatch mixed_good_batch(unsigned seed) {
    std::mt19937 random(seed);
    InflateBatch batch;
    const std::string page = page_text(random, 300 << 10);
    const std::string noise = random_bytes(random, 300 << 10);
    const std::string skewed = skewed_bytes(random, 200 << 10);
    for (int level = 0; level <= 9; ++level) batch.add(zlib_member(page, {.level = level}), page, level);
    for (int strategy : {Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED}) {
        batch.add(zlib_member(page, {.level = 6, .strategy = strategy}), page, 3);
        batch.add(zlib_member(skewed, {.level = 9, .strategy = strategy}), skewed, 1);
    }
    batch.add(zlib_member(noise, {.level = 6}), noise, 5);
    batch.add(zlib_member(noise, {.level = 0}), noise, 2);
    batch.add(zlib_member(skewed, {.level = 1}), skewed);
    batch.add(zlib_member("", {.level = 6}), "", 1);
    batch.add(zlib_member("", {.level = 0}), "");
    batch.add(zlib_member("x", {.level = 6}), "x", 4);
    batch.add(zlib_member("x", {.level = 0}), "x");
    batch.add(zlib_member(page.substr(0, 5000), {.level = 6, .header_fields = true}), page.substr(0, 5000), 6);
    batch.add(zlib_member("", {.level = 1, .header_fields = true}), "");
#if defined(INVIDX_HAVE_LIBDEFLATE)
    for (int level : {0, 1, 6, 9, 12}) {
        batch.add(libdeflate_member(page, level), page, level % 5);
        batch.add(libdeflate_member(skewed, level), skewed, 1);
    }
#endif
    return batch;
}

// `count` members of 0 to `max_text` bytes, each of a random kind, level
// and strategy, at random offsets.
inline InflateBatch random_batch(unsigned seed, size_t count, size_t max_text) {
    std::mt19937 random(seed);
    InflateBatch batch;
    const int strategies[] = {Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED};
    for (size_t i = 0; i < count; ++i) {
        const size_t size = random() % (max_text + 1);
        std::string text;
        switch (random() % 4) {
            case 0: text = random_bytes(random, size); break;
            case 1: text = skewed_bytes(random, size); break;
            default: text = page_text(random, size);
        }
        const int level = static_cast<int>(random() % 10);
        const int strategy = strategies[random() % 5];
        batch.add(zlib_member(text, {.level = level, .strategy = strategy, .header_fields = random() % 8 == 0}), text,
                  random() % 9);
    }
    return batch;
}

// A fixed-code block (BTYPE 01): 'a', then a match of 3 at `distance`, end.
inline DeflateBits fixed_block_with_match(uint32_t distance_code) {
    DeflateBits bits;
    bits.put(1, 1);  // BFINAL
    bits.put(1, 2);  // BTYPE 01
    bits.put_code(0x30 + 'a', 8);  // literals 0..143: 8 bits from 00110000
    bits.put_code(1, 7);  // symbol 257, length 3: 7 bits from 0000000 for 256..279
    bits.put_code(distance_code, 5);  // distance code 0: distance 1, code 1: distance 2
    bits.put_code(0, 7);  // end of block
    return bits;
}

// A dynamic block (BTYPE 10) of 257 literal/length codes, where literal 0
// has a 1-bit code and end-of-block a code of `end_bits` (1: a complete
// code; 2: an incomplete one, which zlib refuses), one 1-bit distance code,
// then literal 0 and end-of-block.
inline DeflateBits dynamic_block_two_symbols(uint32_t end_bits) {
    DeflateBits bits;
    bits.put(1, 1);   // BFINAL
    bits.put(2, 2);   // BTYPE 10
    bits.put(0, 5);   // HLIT: 257
    bits.put(0, 5);   // HDIST: 1
    bits.put(14, 4);  // HCLEN: 18 code length code lengths, in the order 16 17 18 0 8 7 9 6 10 5 11 4 12 3 13 2 14 1
    const uint32_t code_length_lengths[18] = {0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2};
    for (uint32_t length : code_length_lengths) bits.put(length, 3);
    // Code length codes: 18 is 0, 1 is 10, 2 is 11.
    auto length = [&](uint32_t l) { bits.put_code(l == 1 ? 2 : 3, 2); };
    length(1);                                    // literal 0
    bits.put_code(0, 1), bits.put(138 - 11, 7);  // 18: literals 1..138 unused
    bits.put_code(0, 1), bits.put(117 - 11, 7);  // 18: literals 139..255 unused
    length(end_bits);                             // end of block
    length(1);                                    // distance 0
    bits.put_code(0, 1);                          // literal 0
    bits.put_code(1, end_bits == 1 ? 1 : 2);      // end of block: the second code
    return bits;
}

// Fixed-code (BTYPE 01) symbols, for hand-made blocks of chosen matches.
inline void put_fixed_symbol(DeflateBits& bits, uint32_t symbol) {
    if (symbol < 144) bits.put_code(0x30 + symbol, 8);
    else if (symbol < 256) bits.put_code(0x190 + symbol - 144, 9);
    else if (symbol < 280) bits.put_code(symbol - 256, 7);
    else bits.put_code(0xC0 + symbol - 280, 8);  // 280..287 (286 and 287 are no symbol's)
}

// A match of `length` (3..258) at `distance` (1..32768) in fixed codes.
inline void put_fixed_match(DeflateBits& bits, uint32_t length, uint32_t distance) {
    static const uint16_t length_base[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27,
                                             31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    static const uint16_t distance_base[30] = {1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129,
                                               193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
    uint32_t k = 28;
    while (length_base[k] > length) --k;
    put_fixed_symbol(bits, 257 + k);
    bits.put(length - length_base[k], k < 8 || k == 28 ? 0 : (k >> 2) - 1);
    uint32_t c = 29;
    while (distance_base[c] > distance) --c;
    bits.put_code(c, 5);
    bits.put(distance - distance_base[c], c < 4 ? 0 : (c >> 1) - 1);
}

// A member of hand-made blocks: fixed-code blocks of random literals and of
// matches of every length, at distances from 1 (overlapping copies of every
// period) to 32768, between stored blocks of 0 to 65535 bytes that start at
// any bit; `text` gets what it decodes to.
inline std::string handmade_member(std::mt19937& random, std::string& text) {
    DeflateBits bits;
    text.clear();
    const uint32_t blocks = 1 + random() % 4;
    for (uint32_t b = 0; b < blocks; ++b) {
        const uint32_t final_block = b + 1 == blocks;
        if (random() % 3 == 0) {  // stored
            bits.put(final_block, 1);
            bits.put(0, 2);
            bits.flush();
            const uint32_t pick = random() % 6;
            const uint32_t length = pick == 0 ? 0 : pick == 1 ? 65535 : pick == 2 ? 1 + random() % 40 : random() % 70000 % 65536;
            bits.bytes += static_cast<char>(length & 0xFF);
            bits.bytes += static_cast<char>(length >> 8);
            bits.bytes += static_cast<char>(~length & 0xFF);
            bits.bytes += static_cast<char>((~length >> 8) & 0xFF);
            const std::string stored = random_bytes(random, length);
            bits.bytes += stored;
            text += stored;
            continue;
        }
        bits.put(final_block, 1);
        bits.put(1, 2);
        const uint32_t symbols = random() % 3000;
        for (uint32_t i = 0; i < symbols; ++i) {
            const uint32_t r = random();
            if (text.empty() || r % 3 == 0) {
                const auto byte = static_cast<unsigned char>((r >> 8) % 16 == 0 ? (r >> 12) & 0xFF : 'a' + (r >> 12) % 4);
                put_fixed_symbol(bits, byte);
                text += static_cast<char>(byte);
                continue;
            }
            const uint32_t length = (r >> 2) % 4 == 0 ? 3 + (r >> 4) % 256 : 3 + (r >> 4) % 30;
            const uint32_t far = static_cast<uint32_t>(std::min<size_t>(text.size(), 32768));
            // Near (overlapping copies of every period), within 300 bytes
            // of the farthest the text allows (32 KiB once it is that long:
            // the window's edge), or anywhere.
            const uint32_t pick = (r >> 14) % 4;
            const uint32_t distance = pick < 2    ? 1 + (r >> 16) % std::min<uint32_t>(far, 40)
                                      : pick == 2 ? far - (r >> 16) % std::min<uint32_t>(far, 300)
                                                  : 1 + (r >> 16) % far;
            put_fixed_match(bits, length, distance);
            for (uint32_t j = 0; j < length; ++j) text += text[text.size() - distance];
        }
        put_fixed_symbol(bits, 256);
    }
    return member_of_deflate(bits, text);
}

// The canonical codes (RFC 1951 3.2.2) of code lengths lengths[0, count).
inline std::vector<uint32_t> canonical_codes(const uint8_t* lengths, uint32_t count) {
    uint32_t per_length[16] = {}, next[16] = {};
    for (uint32_t s = 0; s < count; ++s) ++per_length[lengths[s]];
    per_length[0] = 0;
    for (uint32_t bits = 1, code = 0; bits < 16; ++bits) next[bits] = code = (code + per_length[bits - 1]) << 1;
    std::vector<uint32_t> codes(count, 0);
    for (uint32_t s = 0; s < count; ++s) {
        if (lengths[s] != 0) codes[s] = next[lengths[s]]++;
    }
    return codes;
}

// A member of one dynamic block whose matches take the most bits a symbol
// can: a 15-bit length code (symbol 284) with its 5 extra bits, then a
// 15-bit distance code (28 or 29) with its 13, 48 bits in all, among
// literals of 1 to 15 bits: a decoder's bit buffer must hold a whole
// match wherever it starts. `text` gets what it decodes to.
inline std::string widest_matches_member(std::mt19937& random, std::string& text) {
    // Literal/length lengths: 'a' 1 bit, 'b' 2, ... 'n' 14, 'o' and length
    // symbol 284 15, end of block 14 ... a complete code needs the two
    // 15-bit codes and the chain 1..14: 'a'..'m' take 1..13, 256 takes 14.
    uint8_t lengths[285 + 30] = {};
    for (uint32_t k = 0; k < 13; ++k) lengths['a' + k] = static_cast<uint8_t>(k + 1);
    lengths[256] = 14;
    lengths['o'] = 15;
    lengths[284] = 15;
    // Distance lengths: codes 0..13 take 1..14 bits, 28 and 29 15.
    uint8_t* distance_lengths = lengths + 285;
    for (uint32_t c = 0; c < 14; ++c) distance_lengths[c] = static_cast<uint8_t>(c + 1);
    distance_lengths[28] = 15;
    distance_lengths[29] = 15;
    const std::vector<uint32_t> litlen = canonical_codes(lengths, 285);
    const std::vector<uint32_t> distance = canonical_codes(distance_lengths, 30);

    DeflateBits bits;
    bits.put(1, 1);  // BFINAL
    bits.put(2, 2);  // BTYPE 10
    bits.put(285 - 257, 5);
    bits.put(30 - 1, 5);
    bits.put(19 - 4, 4);
    // The code length code: lengths 0..15 each a 4-bit code (16..18 unused),
    // its lengths sent in RFC 1951's order.
    const uint8_t order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    for (uint8_t symbol : order) bits.put(symbol < 16 ? 4 : 0, 3);
    for (uint8_t length : lengths) bits.put_code(length, 4);  // the code of length L is L: 16 codes of 4 bits

    text.clear();
    auto literal = [&](uint32_t symbol) {
        bits.put_code(litlen[symbol], lengths[symbol]);
        text += static_cast<char>(symbol);
    };
    // 16,385 literals first, so that every distance of codes 28 and 29 reaches text.
    while (text.size() < 16385) literal('a' + __builtin_ctz(static_cast<uint32_t>(random()) | 0x1000u) % 13);
    for (int i = 0; i < 400; ++i) {
        const uint32_t r = random();
        if (r % 3 == 0) {
            literal(r % 7 == 0 ? 'o' : 'a' + (r >> 3) % 13);
            continue;
        }
        const uint32_t length = 227 + (r >> 4) % 31;  // symbol 284: 227..257, 5 extra bits
        const uint32_t code = (r >> 9) % 2 == 0 ? 28 : 29;
        const uint32_t base = code == 28 ? 16385 : 24577;
        const uint32_t far = std::min<uint32_t>(static_cast<uint32_t>(text.size()), base + 8191);
        if (far < base) continue;
        const uint32_t d = base + (r >> 10) % (far - base + 1);
        bits.put_code(litlen[284], 15);
        bits.put(length - 227, 5);
        bits.put_code(distance[code], 15);
        bits.put(d - base, 13);
        for (uint32_t j = 0; j < length; ++j) text += text[text.size() - d];
    }
    bits.put_code(litlen[256], 14);
    return member_of_deflate(bits, text);
}

// `count` hand-made members, then one of matches as wide as deflate allows,
// at uneven offsets.
inline InflateBatch handmade_batch(unsigned seed, size_t count) {
    std::mt19937 random(seed);
    InflateBatch batch;
    for (size_t i = 0; i < count; ++i) {
        std::string text;
        const std::string member = handmade_member(random, text);
        batch.add(member, std::move(text), random() % 9);
    }
    std::string text;
    const std::string member = widest_matches_member(random, text);
    batch.add(member, std::move(text), random() % 9);
    return batch;
}

// Good and damaged members mixed, with the status each must get.
struct DamagedBatch {
    InflateBatch batch;
    std::vector<InflateStatus> expected;
    // zlib's verdict on each member's bytes (accepted whole, or refused);
    // none for a member whose status comes from the caller's out_size.
    std::vector<int> zlib_accepts;  // 1, 0, or -1 for none
};

inline DamagedBatch damaged_batch(unsigned seed) {
    std::mt19937 random(seed);
    DamagedBatch out;
    const std::string text = page_text(random, 20000);
    const std::string good = zlib_member(text);
    auto add = [&](const std::string& member, InflateStatus status, int64_t out_size = -1, std::string member_text = {},
                   bool zlib_judges = true) {
        out.batch.add(member, member_text.empty() ? text : member_text, random() % 5, out_size);
        out.expected.push_back(status);
        out.zlib_accepts.push_back(zlib_judges ? int{testing::zlib_accepts(member)} : -1);
        const std::string filler = page_text(random, random() % 3000);  // a good member between damaged ones
        out.batch.add(zlib_member(filler, {.level = 1 + static_cast<int>(random() % 9)}), filler, random() % 5);
        out.expected.push_back(InflateStatus::ok);
        out.zlib_accepts.push_back(1);
    };
    add(good, InflateStatus::ok);
    std::string m = good;
    m[m.size() - 8] ^= 0x01;
    add(m, InflateStatus::crc_mismatch);
    m = good;
    m[m.size() - 4] = static_cast<char>(m[m.size() - 4] + 1);  // ISIZE one more
    add(m, InflateStatus::size_mismatch);
    m = good;
    m[m.size() - 4] = static_cast<char>(m[m.size() - 4] - 1);  // ISIZE one less
    add(m, InflateStatus::output_overflow);
    add(good, InflateStatus::size_mismatch, text.size() + 1, {}, false);  // a caller's out_size past ISIZE
    add(good.substr(0, good.size() / 2), InflateStatus::truncated, text.size());
    add(good.substr(0, good.size() - 1), InflateStatus::truncated, text.size());
    add(good.substr(0, 12), InflateStatus::truncated, text.size());
    m = good;
    m.insert(m.size() - 8, 1, '\0');
    add(m, InflateStatus::trailing_bytes);
    m = good;
    m[0] = 0x1e;
    add(m, InflateStatus::bad_header);
    m = good;
    m[3] = static_cast<char>(m[3] | 0x20);  // a reserved flag
    add(m, InflateStatus::bad_header);
    m = zlib_member(text, {.header_fields = true});
    m[m.find("page.html")] = 'q';  // the header's CRC no longer holds
    add(m, InflateStatus::bad_header);
    add(good.substr(0, 7), InflateStatus::bad_header, text.size());
    DeflateBits type3;
    type3.put(1, 1);
    type3.put(3, 2);  // BTYPE 11
    add(member_of_deflate(type3, "a"), InflateStatus::bad_deflate, 1, "a");
    add(member_of_deflate(fixed_block_with_match(1), "aaaa"), InflateStatus::bad_deflate, 4, "aaaa");  // distance 2 after 1 byte
    add(member_of_deflate(fixed_block_with_match(0), "aaaa"), InflateStatus::ok, 4, "aaaa");  // the same block, distance 1
    add(member_of_deflate(dynamic_block_two_symbols(2), std::string(1, '\0')), InflateStatus::bad_deflate, 1,
        std::string(1, '\0'));
    add(member_of_deflate(dynamic_block_two_symbols(1), std::string(1, '\0')), InflateStatus::ok, 1, std::string(1, '\0'));
    DeflateBits oversubscribed;
    oversubscribed.put(1, 1);
    oversubscribed.put(2, 2);
    oversubscribed.put(0, 5), oversubscribed.put(0, 5), oversubscribed.put(0, 4);  // 4 code length codes
    for (int i = 0; i < 4; ++i) oversubscribed.put(1, 3);                          // four 1-bit codes
    add(member_of_deflate(oversubscribed, "a"), InflateStatus::bad_deflate, 1, "a");
    DeflateBits stored;  // a stored block whose NLEN is not ~LEN
    stored.put(1, 1);
    stored.put(0, 2);
    stored.flush();
    stored.bytes += std::string("\x01\x00\xfe\xfe" "a", 5);
    add(member_of_deflate(stored, "a"), InflateStatus::bad_deflate, 1, "a");
    // Codes no symbol has, after a long match: lengths 286 and 287, distances 30 and 31.
    for (uint32_t bad = 0; bad < 4; ++bad) {
        DeflateBits codes;
        codes.put(1, 1);
        codes.put(1, 2);
        put_fixed_symbol(codes, 'a');
        put_fixed_match(codes, 200, 1);
        if (bad < 2) {
            put_fixed_symbol(codes, 286 + bad);
        } else {
            put_fixed_symbol(codes, 257);
            codes.put_code(28 + bad, 5);
        }
        codes.put(0, 16);
        put_fixed_symbol(codes, 256);
        add(member_of_deflate(codes, std::string(201, 'a')), InflateStatus::bad_deflate, 201, std::string(201, 'a'));
    }
    // A long match one byte further back than the text's start, then one that reaches it exactly.
    for (uint32_t back = 0; back < 2; ++back) {
        DeflateBits far;
        far.put(1, 1);
        far.put(1, 2);
        for (char c : std::string("0123456789abcdefghijklmnopqrstuvwxyz")) put_fixed_symbol(far, static_cast<unsigned char>(c));
        put_fixed_match(far, 100, 36 + back);
        put_fixed_symbol(far, 256);
        std::string far_text = "0123456789abcdefghijklmnopqrstuvwxyz";
        for (int j = 0; j < 100; ++j) far_text += far_text[far_text.size() - 36];
        add(member_of_deflate(far, far_text), back == 0 ? InflateStatus::ok : InflateStatus::bad_deflate, far_text.size(),
            far_text);
    }
    return out;
}

}  // namespace invidx::testing
