// A bit vector with constant-time rank and logarithmic select over flat
// arrays, for the succinct term dictionary (lexicon/xbw_trie.hpp) on host and
// device alike: plain pointers, no std containers, so nvcc compiles the same
// lookups for a kernel.
//
// Layout (built by lexicon/bit_rank_builder.hpp): `words` holds the bits, bit
// i at words[i / 64] >> (i % 64); two levels of counts, as sdsl's
// rank_support_v and Zhou, Andersen & Kaminsky's poppy keep them:
// `superblock_ranks[s]` the ones before bit 65536·s (u32), `block_ranks[j]`
// the ones between the start of block j's superblock and bit 256·j (u16: a
// superblock holds 256 blocks, at most 65280 ones before its last). 16 bits
// per 256: 6.25% over the bits, half the 12.5% of a u32 a block, for one
// more read of a small, cache-resident array. Blocks of 512 bits (3.1%)
// make the XBW trie a little smaller, but a rank takes up to seven popcounts
// instead of three and the lookups measured slower, so 256 it is: the trie
// is within its size target either way (docs/PERFORMANCE.md, "Compact term
// dictionaries").
// `select_samples[s]` the block holding the (64·s)-th one, so select
// binary-searches the one or two blocks between two samples instead of all
// of them (4 bytes per 64 ones; only vectors that are selected on have them:
// XBW's S_last is selected on at every byte looked up).
#pragma once

#include <cstdint>

#include "invidx/host_device.hpp"

// The lookups are chains of tiny functions; forced inline so that a caller
// compiled for popcnt (store/term_lookup.cpp) gets the instruction in all of
// them rather than an out-of-line copy built for baseline x86-64.
#if defined(__CUDACC__)
#define INVIDX_LEXICON_INLINE __forceinline__
#elif defined(__GNUC__)
#define INVIDX_LEXICON_INLINE __attribute__((always_inline)) inline
#else
#define INVIDX_LEXICON_INLINE inline
#endif

namespace invidx::lexicon {

inline constexpr uint32_t kBitsPerRankBlock = 256;
inline constexpr uint32_t kWordsPerRankBlock = kBitsPerRankBlock / 64;
inline constexpr uint32_t kBlocksPerSuperblock = 256;  // 65536 bits: a block's relative count fits in u16
inline constexpr uint32_t kBitsPerSuperblock = kBitsPerRankBlock * kBlocksPerSuperblock;
inline constexpr uint32_t kOnesPerSelectSample = 64;

INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE uint32_t popcount64(uint64_t word) {
#if defined(__CUDA_ARCH__)
    return static_cast<uint32_t>(__popcll(word));
#elif defined(__POPCNT__)
    return static_cast<uint32_t>(__builtin_popcountll(word));
#else
    // The library is built for baseline x86-64, where __builtin_popcountll
    // is a call into libgcc, which would dominate an XBW lookup (a popcount
    // every few instructions); the SWAR count is a dozen inline instructions.
    word -= (word >> 1) & 0x5555555555555555ull;
    word = (word & 0x3333333333333333ull) + ((word >> 2) & 0x3333333333333333ull);
    word = (word + (word >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return static_cast<uint32_t>((word * 0x0101010101010101ull) >> 56);
#endif
}

INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE uint32_t trailing_zeros64(uint64_t word) {  // word != 0
#if defined(__CUDA_ARCH__)
    return static_cast<uint32_t>(__ffsll(static_cast<long long>(word)) - 1);
#else
    return static_cast<uint32_t>(__builtin_ctzll(word));
#endif
}

// Position of the k-th (0-based) one of `word`; k < popcount64(word).
INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE uint32_t select_in_word(uint64_t word, uint32_t k) {
    uint32_t offset = 0;
    for (;;) {  // a byte at a time, then the bits of one byte
        const uint32_t in_byte = popcount64(word & 0xFFu);
        if (k < in_byte) break;
        k -= in_byte;
        word >>= 8;
        offset += 8;
    }
    for (; k > 0; --k) word &= word - 1;
    return offset + trailing_zeros64(word);
}

struct BitRankView {
    const uint64_t* words = nullptr;
    const uint32_t* superblock_ranks = nullptr;  // block_count() / kBlocksPerSuperblock + 1 entries
    const uint16_t* block_ranks = nullptr;       // block_count() + 1 entries, relative to their superblock
    const uint32_t* select_samples = nullptr;  // sample_count() entries; null: no select support
    uint32_t size = 0;                         // bits
    uint32_t ones = 0;

    INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE uint32_t block_count() const { return (size + kBitsPerRankBlock - 1) / kBitsPerRankBlock; }

    INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE uint32_t sample_count() const { return (ones + kOnesPerSelectSample - 1) / kOnesPerSelectSample; }

    // Ones before block j's first bit, j <= block_count().
    INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE uint32_t block_rank(uint32_t block) const {
        return superblock_ranks[block / kBlocksPerSuperblock] + block_ranks[block];
    }

    INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE bool get(uint32_t i) const { return (words[i / 64] >> (i % 64)) & 1u; }

    // Ones in [0, i), i <= size.
    INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE uint32_t rank1(uint32_t i) const {
        const uint32_t block = i / kBitsPerRankBlock;
        uint32_t rank = block_rank(block);
        const uint32_t word = i / 64;
        for (uint32_t w = block * kWordsPerRankBlock; w < word; ++w) rank += popcount64(words[w]);
        if (i % 64 != 0) rank += popcount64(words[word] & ((uint64_t{1} << (i % 64)) - 1));
        return rank;
    }
    INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE uint32_t rank0(uint32_t i) const { return i - rank1(i); }

    // Ones in [begin, end), begin <= end <= size: the words between them alone.
    INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE uint32_t ones_between(uint32_t begin, uint32_t end) const {
        if (begin == end) return 0;
        const uint32_t first = begin / 64, last = (end - 1) / 64;
        uint64_t bits = words[first] & (~uint64_t{0} << (begin % 64));
        uint32_t count = 0;
        for (uint32_t w = first; w < last; ++w) {
            count += popcount64(bits);
            bits = words[w + 1];
        }
        if (end % 64 != 0) bits &= (uint64_t{1} << (end % 64)) - 1;
        return count + popcount64(bits);
    }

    // rank1 at both ends of [begin, end): where they lie close, as the ends
    // of one trie node's edges do, the second is the first plus the ones
    // between, not a second walk of the counts and the block.
    INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE void rank1_pair(uint32_t begin, uint32_t end, uint32_t& rank_begin, uint32_t& rank_end) const {
        rank_begin = rank1(begin);
        rank_end = end - begin <= 128 ? rank_begin + ones_between(begin, end) : rank1(end);
    }

    // Position of the k-th (0-based) one; k < ones. Built with select support only.
    INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE uint32_t select1(uint32_t k) const {
        // The block holding it: the last block whose count before it is <= k,
        // between the samples either side of k.
        const uint32_t sample = k / kOnesPerSelectSample;
        uint32_t low = select_samples[sample];
        uint32_t high = sample + 1 < sample_count() ? select_samples[sample + 1] + 1 : block_count();
        while (high - low > 1) {
            const uint32_t middle = low + (high - low) / 2;
            if (block_rank(middle) <= k) low = middle;
            else high = middle;
        }
        uint32_t remaining = k - block_rank(low);
        for (uint32_t w = low * kWordsPerRankBlock;; ++w) {
            const uint32_t count = popcount64(words[w]);
            if (remaining < count) return w * 64 + select_in_word(words[w], remaining);
            remaining -= count;
        }
    }

    // Position of the first one at or after i, or size when there is none.
    INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE uint32_t next_one(uint32_t i) const {
        if (i >= size) return size;
        uint32_t word = i / 64;
        uint64_t bits = words[word] & (~uint64_t{0} << (i % 64));
        const uint32_t last_word = (size - 1) / 64;
        while (bits == 0) {
            if (++word > last_word) return size;
            bits = words[word];
        }
        const uint32_t position = word * 64 + trailing_zeros64(bits);
        return position < size ? position : size;
    }
};

// Where a bit vector's arrays sit in a structure's flat buffer of u64 words
// (offsets in words), so the same buffer copied to a device gives a view
// there: a plain struct a kernel takes by value.
struct BitRankSections {
    uint64_t words_offset = 0;
    uint64_t superblock_ranks_offset = 0;
    uint64_t block_ranks_offset = 0;
    uint64_t select_samples_offset = 0;
    uint32_t size = 0;
    uint32_t ones = 0;

    INVIDX_HOST_DEVICE BitRankView view(const uint64_t* base) const {
        BitRankView view;
        view.words = base + words_offset;
        view.superblock_ranks = reinterpret_cast<const uint32_t*>(base + superblock_ranks_offset);
        view.block_ranks = reinterpret_cast<const uint16_t*>(base + block_ranks_offset);
        view.select_samples = reinterpret_cast<const uint32_t*>(base + select_samples_offset);
        view.size = size;
        view.ones = ones;
        return view;
    }
};

}  // namespace invidx::lexicon
