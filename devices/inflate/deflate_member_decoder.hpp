// One gzip member (RFC 1952) holding one deflate stream (RFC 1951), decoded
// whole into a buffer of its ISIZE: the decoder the GPU inflate kernel runs
// on each member (devices/cuda/inflate/gpu_inflate.cu) and the host runs as
// its reference (inflate_members_on_host), written once for both. C++17,
// no CUDA headers: INVIDX_HOST_DEVICE is empty when nvcc is not compiling.
//
// It accepts exactly what zlib accepts and reports anything else as an
// InflateStatus, never reading or writing outside the member's bytes and
// its text's buffer: the caller decodes a member that is not ok again on the
// CPU, whose errors are the ones users see.
//
// Huffman codes are decoded through tables: one lookup of the next
// kLitLenPrimaryBits (kDistPrimaryBits) bits gives a symbol whose code is no
// longer, or points to a second-level table sized for the longer codes that
// share those first bits (at most 15 bits in all). A 64-bit bit buffer holds
// at least 56 bits after a refill: enough for a length code, its extra bits,
// a distance code and its extra bits, so one refill per symbol.
#pragma once

#include <cstdint>
#include <cstring>

#include "devices/gpu_inflate.hpp"

#if defined(__CUDACC__)
#define INVIDX_HOST_DEVICE __host__ __device__
#define INVIDX_INFLATE_INLINE __forceinline__
#else
#define INVIDX_HOST_DEVICE
#define INVIDX_INFLATE_INLINE inline __attribute__((always_inline))
#endif

namespace invidx::inflate {

// ---------------------------------------------------------------- CRC-32
//
// CRC-32 (gzip's, reflected polynomial 0xEDB88320) by slicing-by-8: eight
// 256-entry tables fold eight bytes per step with eight independent
// lookups. The kernel decodes a member per thread, so the CRC of a member's
// text is that thread's work: a byte-at-a-time loop would cost one
// dependent lookup per byte, as much as the decoding itself; eight bytes a
// step cut it several times, with the 8 KiB of tables in each block's shared
// memory (constant memory would serialize the warp's different addresses).
// A separate parallel CRC pass with CRC combination would spread one long
// member over many threads, but the batch's members already keep every
// thread busy, so the simpler fused pass wins.
struct Crc32Tables {
    uint32_t t[8][256];
};

constexpr Crc32Tables make_crc32_tables() {
    Crc32Tables tables{};
    for (uint32_t i = 0; i < 256; ++i) {
        uint32_t c = i;
        for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
        tables.t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i) {
        for (int s = 1; s < 8; ++s) tables.t[s][i] = (tables.t[s - 1][i] >> 8) ^ tables.t[0][tables.t[s - 1][i] & 0xFF];
    }
    return tables;
}

// The CRC-32 of bytes [0, size) continued from `crc` (0 for a new text).
// `tables` is a Crc32Tables' t (in shared memory on the device).
INVIDX_HOST_DEVICE inline uint32_t crc32_update(uint32_t crc, const unsigned char* bytes, uint64_t size,
                                                const uint32_t (*tables)[256]) {
    uint32_t c = ~crc;
    // Bytes up to an 8-byte boundary, so that the words below are aligned loads.
    while (size > 0 && (reinterpret_cast<uintptr_t>(bytes) & 7) != 0) {
        c = (c >> 8) ^ tables[0][(c ^ *bytes++) & 0xFF];
        --size;
    }
    for (; size >= 8; size -= 8, bytes += 8) {
        uint64_t word;
#if defined(__CUDA_ARCH__) || defined(INVIDX_INFLATE_DEVICE_LOADS)
        word = *reinterpret_cast<const uint64_t*>(bytes);  // aligned above
#else
        std::memcpy(&word, bytes, 8);  // little-endian hosts (x86-64, AArch64) as gzip's byte order
#endif
        const uint32_t low = static_cast<uint32_t>(word) ^ c;
        const uint32_t high = static_cast<uint32_t>(word >> 32);
        c = tables[7][low & 0xFF] ^ tables[6][(low >> 8) & 0xFF] ^ tables[5][(low >> 16) & 0xFF] ^ tables[4][low >> 24] ^
            tables[3][high & 0xFF] ^ tables[2][(high >> 8) & 0xFF] ^ tables[1][(high >> 16) & 0xFF] ^ tables[0][high >> 24];
    }
    while (size-- > 0) c = (c >> 8) ^ tables[0][(c ^ *bytes++) & 0xFF];
    return ~c;
}

// ---------------------------------------------------------------- tables

// A table entry: value << 16 | extra << 8 | kind << 4 | bits.
//   literal   value = the byte (or, for the code length code, the symbol)
//   length    value = base length (distance tables: base distance), extra = its extra bits
//   end       end of block
//   link      value = first entry of a second-level table, extra = its index bits;
//             bits = the primary bits to drop before indexing it
//   invalid   a code no symbol has (an incomplete code's hole, symbols 286/287, distances 30/31)
// bits: the code's length (in a second-level table: what is left of it).
enum EntryKind : uint32_t { kLiteral = 0, kLength = 1, kEnd = 2, kLink = 3, kInvalid = 4 };

INVIDX_HOST_DEVICE constexpr uint32_t make_entry(uint32_t kind, uint32_t bits, uint32_t extra, uint32_t value) {
    return value << 16 | extra << 8 | kind << 4 | bits;
}
INVIDX_HOST_DEVICE constexpr uint32_t entry_bits(uint32_t e) { return e & 0xF; }
INVIDX_HOST_DEVICE constexpr uint32_t entry_kind(uint32_t e) { return (e >> 4) & 0xF; }
INVIDX_HOST_DEVICE constexpr uint32_t entry_extra(uint32_t e) { return (e >> 8) & 0xFF; }
INVIDX_HOST_DEVICE constexpr uint32_t entry_value(uint32_t e) { return e >> 16; }

constexpr unsigned kLitLenPrimaryBits = 10;
constexpr unsigned kDistPrimaryBits = 8;
constexpr unsigned kCodeLengthPrimaryBits = 7;  // code length codes are at most 7 bits: one level
// The most entries a table of complete canonical codes can need with these
// primary sizes (primary plus second-level tables), counted over every
// code-length set (the bound zlib's and libdeflate's tables rest on: 1334
// for 288 symbols and 10 bits, 402 for 30 symbols and 8 bits). The builder
// checks it anyway: a set that would need more is refused, never overrun.
constexpr unsigned kLitLenTableSize = 1334;
constexpr unsigned kDistTableSize = 402;

enum class CodeKind { literal_length, distance, code_length };

// One decoder's tables: about 7 KiB, the per-thread local memory of the kernel.
struct DecoderTables {
    uint32_t litlen[kLitLenTableSize];
    uint32_t dist[kDistTableSize];
    uint32_t code_length[1u << kCodeLengthPrimaryBits];
    uint8_t lengths[288 + 32];
    uint16_t sorted[288];  // build_table's canonical order
    bool fixed_built;  // litlen/dist hold the fixed codes (BTYPE 01) of an earlier block
};

INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE uint32_t reverse_bits(uint32_t code, uint32_t bits) {
#if defined(__CUDA_ARCH__)
    return __brev(code) >> (32 - bits);
#else
    uint32_t reversed = 0;
    for (uint32_t i = 0; i < bits; ++i, code >>= 1) reversed = reversed << 1 | (code & 1);
    return reversed;
#endif
}

// What symbol `symbol` of a code of `kind` decodes to, less its code length.
INVIDX_HOST_DEVICE inline uint32_t symbol_entry(CodeKind kind, uint32_t symbol) {
    if (kind == CodeKind::code_length) return make_entry(kLiteral, 0, 0, symbol);
    if (kind == CodeKind::distance) {
        if (symbol >= 30) return make_entry(kInvalid, 0, 0, 0);
        if (symbol < 4) return make_entry(kLength, 0, 0, symbol + 1);
        const uint32_t extra = (symbol >> 1) - 1;
        return make_entry(kLength, 0, extra, ((2 + (symbol & 1)) << extra) + 1);
    }
    if (symbol < 256) return make_entry(kLiteral, 0, 0, symbol);
    if (symbol == 256) return make_entry(kEnd, 0, 0, 0);
    const uint32_t k = symbol - 257;  // length codes 257..285
    if (k >= 29) return make_entry(kInvalid, 0, 0, 0);
    if (k == 28) return make_entry(kLength, 0, 0, 258);
    if (k < 8) return make_entry(kLength, 0, 0, k + 3);
    const uint32_t extra = (k >> 2) - 1;
    return make_entry(kLength, 0, extra, ((4 + (k & 3)) << extra) + 3);
}

// Builds the decoding table of the canonical code whose code lengths are
// lengths[0, count) (each 0..15). False when zlib would refuse the set: an
// over-subscribed code, or an incomplete one, except a literal/length or
// distance code of a single 1-bit code (its other half decodes as invalid);
// a code length code without any code. A set of no codes at all gives a
// table of invalid entries (a block may use no distances).
// `sorted` is room for `count` symbols.
INVIDX_HOST_DEVICE inline bool build_table(const uint8_t* lengths, uint32_t count, CodeKind kind, uint32_t primary_bits,
                                           uint32_t* table, uint32_t capacity, uint16_t* sorted) {
    uint32_t counts[16] = {};
    for (uint32_t s = 0; s < count; ++s) ++counts[lengths[s]];
    counts[0] = 0;
    uint32_t max_bits = 15;
    while (max_bits > 0 && counts[max_bits] == 0) --max_bits;
    const uint32_t primary_size = 1u << primary_bits;
    if (max_bits == 0) {
        if (kind == CodeKind::code_length) return false;
        for (uint32_t i = 0; i < primary_size; ++i) table[i] = make_entry(kInvalid, 0, 0, 0);
        return true;
    }
    int32_t left = 1;  // codes of the current length still unused
    for (uint32_t bits = 1; bits <= 15; ++bits) {
        left = left * 2 - static_cast<int32_t>(counts[bits]);
        if (left < 0) return false;  // over-subscribed
    }
    if (left > 0) {
        if (kind == CodeKind::code_length || max_bits != 1) return false;  // incomplete
        for (uint32_t i = 0; i < primary_size; ++i) table[i] = make_entry(kInvalid, 0, 0, 0);
    }
    // The symbols in canonical order (by code length, then symbol): one
    // counting pass, not a pass over the symbols per length.
    uint32_t next_slot[16];
    next_slot[1] = 0;
    for (uint32_t bits = 1; bits < 15; ++bits) next_slot[bits + 1] = next_slot[bits] + counts[bits];
    for (uint32_t s = 0; s < count; ++s) {
        if (lengths[s] != 0) sorted[next_slot[lengths[s]]++] = static_cast<uint16_t>(s);
    }
    const uint32_t used = next_slot[15];
    uint32_t code = 0;  // the canonical code, first bit most significant
    uint32_t bits = 1;
    uint32_t next_free = primary_size;
    uint32_t link_prefix = ~0u, link_base = 0, link_bits = 0;
    for (uint32_t k = 0; k < used; ++k) {
        const uint32_t s = sorted[k];
        if (lengths[s] != bits) {
            code <<= lengths[s] - bits;
            bits = lengths[s];
        }
        const uint32_t symbol = symbol_entry(kind, s);
        const uint32_t reversed = reverse_bits(code, bits);  // as it arrives, first bit lowest
        if (bits <= primary_bits) {
            const uint32_t e = symbol | bits;
            for (uint32_t i = reversed; i < primary_size; i += 1u << bits) table[i] = e;
        } else {
            const uint32_t prefix = reversed & (primary_size - 1);
            if (prefix != link_prefix) {
                // A new second-level table: as many index bits as the
                // longest code sharing this prefix has beyond it. The
                // codes still to place come in canonical order, so they
                // fill this prefix's space first, shortest first.
                uint32_t sub_bits = bits - primary_bits;
                int32_t room = 1 << sub_bits;
                for (;;) {
                    room -= static_cast<int32_t>(counts[sub_bits + primary_bits]);
                    if (room <= 0 || sub_bits + primary_bits >= max_bits) break;
                    ++sub_bits;
                    room *= 2;
                }
                if (next_free + (1u << sub_bits) > capacity) return false;
                link_prefix = prefix;
                link_base = next_free;
                link_bits = sub_bits;
                next_free += 1u << sub_bits;
                table[prefix] = make_entry(kLink, primary_bits, sub_bits, link_base);
            }
            const uint32_t rest = bits - primary_bits;
            const uint32_t e = symbol | rest;
            for (uint32_t i = reversed >> primary_bits; i < (1u << link_bits); i += 1u << rest) table[link_base + i] = e;
        }
        --counts[bits];  // counts now say how many codes of each length are still to place
        ++code;
    }
    return true;
}

// The fixed codes of BTYPE 01 (RFC 1951 3.2.6).
INVIDX_HOST_DEVICE inline void build_fixed_tables(DecoderTables& t) {
    for (uint32_t s = 0; s < 144; ++s) t.lengths[s] = 8;
    for (uint32_t s = 144; s < 256; ++s) t.lengths[s] = 9;
    for (uint32_t s = 256; s < 280; ++s) t.lengths[s] = 7;
    for (uint32_t s = 280; s < 288; ++s) t.lengths[s] = 8;
    build_table(t.lengths, 288, CodeKind::literal_length, kLitLenPrimaryBits, t.litlen, kLitLenTableSize, t.sorted);
    for (uint32_t s = 0; s < 32; ++s) t.lengths[s] = 5;
    build_table(t.lengths, 32, CodeKind::distance, kDistPrimaryBits, t.dist, kDistTableSize, t.sorted);
    t.fixed_built = true;
}

// ---------------------------------------------------------------- bits

// Eight bytes from p as the device loads them: three aligned 32-bit loads
// joined by funnel shifts (eight byte loads cost more instructions, and a
// 64-bit load needs an alignment p does not have). Reads the aligned words
// holding [p, p + 8): at most 3 bytes before p and 3 after p + 8, which the
// caller keeps inside the member.
INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE uint64_t load64_by_words(const unsigned char* p) {
    const uintptr_t address = reinterpret_cast<uintptr_t>(p);
    const unsigned char* aligned = p - (address & 3);
    const uint32_t shift = static_cast<uint32_t>(address & 3) * 8;
#if defined(__CUDA_ARCH__)
    const uint32_t* words = reinterpret_cast<const uint32_t*>(aligned);
    const uint32_t low = __funnelshift_r(words[0], words[1], shift);
    const uint32_t high = __funnelshift_r(words[1], words[2], shift);
#else
    uint32_t words[3];
    std::memcpy(words, aligned, sizeof words);
    const uint32_t low = shift ? (words[0] >> shift) | (words[1] << (32 - shift)) : words[0];
    const uint32_t high = shift ? (words[1] >> shift) | (words[2] << (32 - shift)) : words[1];
#endif
    return uint64_t{low} | uint64_t{high} << 32;
}

// Bits of the deflate data [0, end) of `in`, first bit lowest. Past `end`
// the reader supplies zero bytes and counts them (pos runs on); a decoder
// that consumed any of them has a truncated member, whatever it decoded.
struct BitReader {
    const unsigned char* in;
    uint32_t end;
    uint32_t pos;     // the next byte to load (may pass end: zeros)
    uint32_t count;   // valid bits in buffer
    uint64_t buffer;  // bits above `count` are zero or the bytes from pos on

    INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE uint64_t consumed_bits() const { return uint64_t{pos} * 8 - count; }
    INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE bool past_end() const { return consumed_bits() > uint64_t{end} * 8; }

    // At least 56 bits in the buffer. False once the reader has supplied
    // more than 16 zero bytes past the end (the buffer holds 8): the member
    // is truncated, and this bounds the work a decoder does on made-up bits.
    INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE bool refill() {
        if (count >= 56) return true;
        if (pos + 8 <= end) {  // the fast path: the trailer's 8 bytes follow end, so pos + 11 is in the member
            uint64_t word;
#if defined(__CUDA_ARCH__) || defined(INVIDX_INFLATE_DEVICE_LOADS)  // the latter: the device's loads tested on a host
            word = load64_by_words(in + pos);
#else
            std::memcpy(&word, in + pos, 8);
#endif
            // Whole bytes up to 56..63 bits; the bits above count are the bytes from pos on.
            buffer |= word << count;
            pos += (63 - count) >> 3;
            count |= 56;
            return true;
        }
        while (count <= 56) {
            if (pos < end) buffer |= uint64_t{in[pos]} << count;
            ++pos;
            count += 8;
        }
        return pos <= end + 16;
    }
    // At least 32 bits in the buffer (the lockstep decoder's refill,
    // devices/inflate/lockstep_decoding.hpp): one aligned 32-bit word when
    // count < 32 and the next 4 bytes are whole, else bytes one at a time
    // (zeros past end, as refill supplies them) up to 4-byte alignment or a
    // full buffer, so that the next refill is a word. The bits decoded are
    // refill's; only how far ahead it loads differs. False as refill.
    INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE bool refill32() {
        if (count >= 32) return true;
        const unsigned char* at = in + pos;
        if (pos + 4 <= end && (reinterpret_cast<uintptr_t>(at) & 3) == 0) {
            uint32_t word;
#if defined(__CUDA_ARCH__)
            word = *reinterpret_cast<const uint32_t*>(at);
#else
            std::memcpy(&word, at, 4);
#endif
            buffer |= uint64_t{word} << count;
            pos += 4;
            count += 32;
            return true;
        }
        do {
            if (pos < end) buffer |= uint64_t{in[pos]} << count;
            ++pos;
            count += 8;
        } while (count <= 56 && (count < 32 || (reinterpret_cast<uintptr_t>(in + pos) & 3) != 0));
        return pos <= end + 16;
    }
    INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE uint32_t peek(uint32_t bits) const {
        return static_cast<uint32_t>(buffer & ((uint64_t{1} << bits) - 1));
    }
    INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE void drop(uint32_t bits) {
        buffer >>= bits;
        count -= bits;
    }
    INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE uint32_t take(uint32_t bits) {
        const uint32_t v = peek(bits);
        drop(bits);
        return v;
    }
    // Drops the bits up to the next byte boundary and forgets the buffer:
    // the next byte to read is then pos (a stored block's LEN).
    INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE void align_to_byte() {
        const uint64_t at = (consumed_bits() + 7) / 8;
        pos = static_cast<uint32_t>(at);
        count = 0;
        buffer = 0;
    }
};

// ---------------------------------------------------------------- matches

// to[0, length) = the `length` bytes from `distance` back, which may overlap
// what is being written (distance < length repeats the last distance
// bytes). A byte loop would make every byte wait for the store before it;
// instead a distance of 8 or more moves 8 independent bytes a step (each
// step's source written before it), and a shorter one repeats its first
// `distance` bytes, read once. With `room` (bytes of the text's buffer
// from `to` on) for it, the last step of 8 runs past length: the bytes it
// writes there are the text's next ones' places, written again before read.
INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE void copy_match(unsigned char* to, uint32_t distance, uint32_t length, uint32_t room) {
    const unsigned char* from = to - distance;
    uint32_t i = 0;
    if (distance >= 8) {
        const uint32_t steps_end = room - length >= 7 ? length + 7 : length;
        for (; i + 8 <= steps_end; i += 8) {
#if defined(__CUDA_ARCH__) || defined(INVIDX_INFLATE_DEVICE_LOADS)
            unsigned char bytes[8];  // registers: 8 loads in flight, then 8 stores (no unaligned words on a GPU)
#pragma unroll
            for (int k = 0; k < 8; ++k) bytes[k] = from[i + k];
#pragma unroll
            for (int k = 0; k < 8; ++k) to[i + k] = bytes[k];
#else
            uint64_t word;
            std::memcpy(&word, from + i, 8);
            std::memcpy(to + i, &word, 8);
#endif
        }
        for (; i < length; ++i) to[i] = from[i];
        return;
    }
    unsigned char pattern[8];
    for (uint32_t k = 0; k < distance; ++k) pattern[k] = from[k];
    for (uint32_t k = 0; i < length; ++i) {
        to[i] = pattern[k];
        if (++k == distance) k = 0;
    }
}

// ---------------------------------------------------------------- member

INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE uint32_t load_le32(const unsigned char* p) {
    return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

// The code lengths of a dynamic block (BTYPE 10) into tables: ok, or why
// they are not a valid header.
INVIDX_HOST_DEVICE inline InflateStatus read_dynamic_tables(BitReader& r, DecoderTables& t) {
    constexpr InflateStatus bad = InflateStatus::bad_deflate;
    if (!r.refill()) return InflateStatus::truncated;
    const uint32_t literal_codes = r.take(5) + 257;
    const uint32_t distance_codes = r.take(5) + 1;
    const uint32_t code_length_codes = r.take(4) + 4;
    if (literal_codes > 286 || distance_codes > 30) return bad;
    // The code length code's lengths come in this order (RFC 1951 3.2.7).
    const uint8_t order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    uint8_t code_length_lengths[19] = {};
    for (uint32_t i = 0; i < code_length_codes; ++i) {
        if (!r.refill()) return InflateStatus::truncated;
        code_length_lengths[order[i]] = static_cast<uint8_t>(r.take(3));
    }
    if (!build_table(code_length_lengths, 19, CodeKind::code_length, kCodeLengthPrimaryBits, t.code_length,
                     1u << kCodeLengthPrimaryBits, t.sorted)) {
        return bad;
    }
    const uint32_t total = literal_codes + distance_codes;
    for (uint32_t i = 0; i < total;) {
        if (!r.refill()) return InflateStatus::truncated;
        const uint32_t e = t.code_length[r.peek(kCodeLengthPrimaryBits)];  // complete: every entry a symbol
        r.drop(entry_bits(e));
        const uint32_t symbol = entry_value(e);
        if (symbol < 16) {
            t.lengths[i++] = static_cast<uint8_t>(symbol);
            continue;
        }
        uint32_t repeat;
        uint8_t value = 0;
        if (symbol == 16) {
            if (i == 0) return bad;  // nothing to repeat
            value = t.lengths[i - 1];
            repeat = 3 + r.take(2);
        } else if (symbol == 17) {
            repeat = 3 + r.take(3);
        } else {
            repeat = 11 + r.take(7);
        }
        if (i + repeat > total) return bad;
        while (repeat-- > 0) t.lengths[i++] = value;
    }
    if (t.lengths[256] == 0) return bad;  // no end-of-block code
    t.fixed_built = false;
    if (!build_table(t.lengths, literal_codes, CodeKind::literal_length, kLitLenPrimaryBits, t.litlen, kLitLenTableSize,
                     t.sorted)) {
        return bad;
    }
    if (!build_table(t.lengths + literal_codes, distance_codes, CodeKind::distance, kDistPrimaryBits, t.dist,
                     kDistTableSize, t.sorted)) {
        return bad;
    }
    return InflateStatus::ok;
}

// ---------------------------------------------------------------- blocks and symbols
// What both decoders read (inflate_gzip_member here, the warp's
// decode_member_in_lockstep in lockstep_decoding.hpp, which refills between
// a match's length and read_distance), with the same checks in the same
// order. A literal is written by each decoder
// itself: that path is the hot one, kept free of a status to return.

// A block's header: BFINAL, BTYPE, and a stored block's LEN (checked against
// NLEN, the input left and the text's room: `produced` of `out_size` bytes
// made) or a Huffman block's tables. ok, or why not.
struct BlockHeader {
    bool final_block;
    bool stored;
    uint32_t stored_length;  // a stored block's LEN; its bytes start at r.pos
};

INVIDX_HOST_DEVICE inline InflateStatus read_block_header(BitReader& r, const unsigned char* in, uint32_t produced,
                                                          uint32_t out_size, DecoderTables& t, BlockHeader& block) {
    if (!r.refill()) return InflateStatus::truncated;
    block.final_block = r.take(1) != 0;
    const uint32_t type = r.take(2);
    block.stored = type == 0;
    if (type == 0) {  // stored: LEN, NLEN = ~LEN, LEN bytes
        r.align_to_byte();
        if (r.pos + 4 > r.end) return InflateStatus::truncated;
        const uint32_t length = uint32_t{in[r.pos]} | uint32_t{in[r.pos + 1]} << 8;
        const uint32_t check = uint32_t{in[r.pos + 2]} | uint32_t{in[r.pos + 3]} << 8;
        if ((length ^ check) != 0xFFFF) return InflateStatus::bad_deflate;
        r.pos += 4;
        if (length > r.end - r.pos) return InflateStatus::truncated;
        if (length > out_size - produced) return InflateStatus::output_overflow;
        block.stored_length = length;
        return InflateStatus::ok;
    }
    if (type == 1) {
        if (!t.fixed_built) build_fixed_tables(t);
        return InflateStatus::ok;
    }
    if (type == 2) return read_dynamic_tables(r, t);
    return InflateStatus::bad_deflate;  // BTYPE 11
}

// A Huffman block's next literal/length code: its table entry (kind,
// value), the code's bits dropped. The caller has refilled the reader.
INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE uint32_t read_litlen_entry(BitReader& r, const DecoderTables& t) {
    uint32_t e = t.litlen[r.peek(kLitLenPrimaryBits)];
    if (entry_kind(e) == kLink) {
        r.drop(kLitLenPrimaryBits);
        e = t.litlen[entry_value(e) + r.peek(entry_extra(e))];
    }
    r.drop(entry_bits(e));
    return e;
}

// The match whose length code `entry` is (neither a literal nor the
// block's end): its length and distance, the distance inside the text made
// so far (`produced` bytes) and the length within the room left. ok, or why not.
struct BlockMatch {
    uint32_t length;
    uint32_t distance;
};

// Its distance code and extra bits, match.length read: the checks of the
// whole match.
INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE InflateStatus read_distance(BitReader& r, const DecoderTables& t, uint32_t produced,
                                                                     uint32_t out_size, BlockMatch& match) {
    uint32_t d = t.dist[r.peek(kDistPrimaryBits)];
    if (entry_kind(d) == kLink) {
        r.drop(kDistPrimaryBits);
        d = t.dist[entry_value(d) + r.peek(entry_extra(d))];
    }
    r.drop(entry_bits(d));
    if (entry_kind(d) != kLength) return InflateStatus::bad_deflate;
    match.distance = entry_value(d) + r.take(entry_extra(d));
    if (match.distance > produced) return InflateStatus::bad_deflate;  // before the start of the text
    if (match.length > out_size - produced) return InflateStatus::output_overflow;
    return InflateStatus::ok;
}

INVIDX_HOST_DEVICE INVIDX_INFLATE_INLINE InflateStatus read_match(BitReader& r, const DecoderTables& t, uint32_t entry,
                                                                  uint32_t produced, uint32_t out_size, BlockMatch& match) {
    if (entry_kind(entry) != kLength) return InflateStatus::bad_deflate;
    match.length = entry_value(entry) + r.take(entry_extra(entry));
    return read_distance(r, t, produced, out_size, match);
}

// Where the member's deflate data starts (its header's length), or 0 with
// *status when the header is not a gzip member's.
INVIDX_HOST_DEVICE inline uint32_t parse_member_header(const unsigned char* in, uint32_t size, const uint32_t (*crc)[256],
                                                       InflateStatus* status) {
    *status = InflateStatus::bad_header;
    if (size < 10) return 0;
    if (in[0] != 0x1F || in[1] != 0x8B || in[2] != 8) return 0;
    const uint32_t flags = in[3];
    if (flags & 0xE0) return 0;  // reserved flags
    uint32_t at = 10;
    if (flags & 0x04) {  // FEXTRA: XLEN, then XLEN bytes
        if (at + 2 > size) return 0;
        const uint32_t extra = uint32_t{in[at]} | uint32_t{in[at + 1]} << 8;
        at += 2;
        if (extra > size - at) return 0;
        at += extra;
    }
    for (uint32_t field = 0x08; field <= 0x10; field <<= 1) {  // FNAME, FCOMMENT: zero-terminated
        if (!(flags & field)) continue;
        while (at < size && in[at] != 0) ++at;
        if (at >= size) return 0;
        ++at;
    }
    if (flags & 0x02) {  // FHCRC: the low 16 bits of the CRC-32 of the header before it
        if (at + 2 > size) return 0;
        const uint32_t expected = uint32_t{in[at]} | uint32_t{in[at + 1]} << 8;
        if ((crc32_update(0, in, at, crc) & 0xFFFF) != expected) return 0;
        at += 2;
    }
    return at;
}

// The member's header, then a bit reader over its deflate data (the member
// less its 8-byte trailer). False, with the outcome, when there is none.
INVIDX_HOST_DEVICE inline bool open_member(const unsigned char* in, uint32_t in_size, const uint32_t (*crc)[256],
                                           BitReader& r, InflateOutcome& outcome) {
    InflateStatus header_status = InflateStatus::ok;
    const uint32_t start = parse_member_header(in, in_size, crc, &header_status);
    if (start == 0) {
        outcome.status = header_status;
        return false;
    }
    if (in_size - start < 8) {
        outcome.status = InflateStatus::truncated;
        outcome.offset = start;
        return false;
    }
    r = BitReader{in, in_size - 8, start, 0, 0};
    return true;
}

// Decodes the member in[0, in_size) into out[0, out_size), out_size its
// ISIZE; `crc` a Crc32Tables' t. ok only when the deflate data ends exactly
// at the 8-byte trailer, the text fills out_size, equals ISIZE, and its
// CRC-32 is the trailer's.
INVIDX_HOST_DEVICE inline InflateOutcome inflate_gzip_member(const unsigned char* in, uint32_t in_size, unsigned char* out,
                                                             uint32_t out_size, DecoderTables& t,
                                                             const uint32_t (*crc)[256]) {
    InflateOutcome outcome;
    BitReader r{};
    if (!open_member(in, in_size, crc, r, outcome)) return outcome;
    uint32_t produced = 0;
    InflateStatus status = InflateStatus::ok;
    t.fixed_built = false;

    bool final_block = false;
    while (!final_block && status == InflateStatus::ok) {
        BlockHeader block{};
        status = read_block_header(r, in, produced, out_size, t, block);
        if (status != InflateStatus::ok) break;
        final_block = block.final_block;
        if (block.stored) {
            for (uint32_t i = 0; i < block.stored_length; ++i) out[produced + i] = in[r.pos + i];
            produced += block.stored_length;
            r.pos += block.stored_length;
            continue;
        }
        // The block's symbols, up to its end-of-block code.
        for (;;) {
            if (!r.refill()) {
                status = InflateStatus::truncated;
                break;
            }
            const uint32_t e = read_litlen_entry(r, t);
            const uint32_t kind = entry_kind(e);
            if (kind == kLiteral) {
                if (produced >= out_size) {
                    status = InflateStatus::output_overflow;
                    break;
                }
                out[produced++] = static_cast<unsigned char>(entry_value(e));
                continue;
            }
            if (kind == kEnd) break;
            BlockMatch match;
            status = read_match(r, t, e, produced, out_size, match);
            if (status != InflateStatus::ok) break;
            copy_match(out + produced, match.distance, match.length, out_size - produced);
            produced += match.length;
        }
    }

    // Bits made up past the deflate data's end explain any failure.
    if (r.past_end()) status = InflateStatus::truncated;
    const uint64_t stopped = (r.consumed_bits() + 7) / 8;
    outcome.offset = static_cast<uint32_t>(stopped < in_size ? stopped : in_size);
    if (status == InflateStatus::ok) {
        if (stopped != r.end) {
            status = InflateStatus::trailing_bytes;
        } else if (produced != out_size || produced != load_le32(in + in_size - 4)) {
            status = InflateStatus::size_mismatch;
        } else if (crc32_update(0, out, produced, crc) != load_le32(in + in_size - 8)) {
            status = InflateStatus::crc_mismatch;
        } else {
            outcome.offset = in_size;  // the trailer read too
        }
    }
    outcome.status = status;
    return outcome;
}

}  // namespace invidx::inflate
