// The XBW transform of the dictionary's trie (Ferragina et al.'s xbw; the
// prefix-matching form of Hon et al. that Wakatsuki, Keyaki & Miyazaki put
// on GPUs, §2.4 and §3.1): a term's bytes are walked down the trie with rank
// operations alone, so the dictionary fits in a few bytes per term instead of
// a state-transition table's 256 pointers per node, and host and device run
// the same lookup over the same flat buffer.
//
// The trie is the trie of the terms read backwards: a term's path from the
// root spells its last byte first. Nodes are numbered in the order of their
// reverse prefixes (the node's label, its parent's, ... up to the root), the
// root first; for the node of a reversed term that string is the term itself
// read forwards, so the terminal nodes come in the dictionary's byte-wise
// order and a term's dictionary index is its node's rank among terminal
// nodes (the FM-index's backward search, on a trie): no id map. The cost is
// a trie of shared suffixes rather than shared prefixes, somewhat more nodes
// but far less than the 20 bits a term an id map took (docs/PERFORMANCE.md,
// "Compact term dictionaries").
//
// The nodes labelled c are consecutive, ordered as their parents are, and a
// node's child by c is
//     C[c] + (edges labelled c leaving nodes numbered below it)
// the paper's rank(x, B_c) + C[c]. One B_c per byte value would cost 256
// bits a node; instead the edges, listed parent by parent in node order with
// each parent's labels ascending, form the XBW sequences:
//   S_alpha  the edge labels, each as its byte's prefix code, in a wavelet
//            matrix of BitRankView levels, so that rank_c(S_alpha, i) is two
//            binary ranks a level of c's code. The codes are Huffman codes
//            over the labels' counts limited to L = ceil(log2 σ) bits (σ the
//            bytes that occur: 7 levels for 65-128), each padded with zeros
//            to L at the levels below its end: L bits a label as a
//            fixed-length code would take, but a lookup walks only its
//            byte's code: fewer levels for the commonest letters, fewer
//            than L on average over a dictionary's labels.
//            The codes being prefix-free, the labels that share a code's
//            bits after its last level are that byte's alone, and they lie
//            together in that level's order (a wavelet matrix level is
//            stably sorted by the bits before it);
//   S_last   1 at the last edge of each parent: a parent's edges run from
//            just after the previous parent's last edge;
//   internal 1 at nodes with children (leaves own no edges);
//   terminal 1 at nodes where a term ends (a term that is a suffix of
//            another ends at an internal node).
#pragma once

#include <cstdint>

#include "invidx/host_device.hpp"
#include "lexicon/bit_rank.hpp"

namespace invidx::lexicon {

inline constexpr uint64_t kTermNotFound = ~uint64_t{0};
inline constexpr unsigned kMaxLabelLevels = 8;  // 256 symbols at most
inline constexpr uint16_t kNoCode = 0xFFFF;

struct XbwTrieView {
    BitRankView label_levels[kMaxLabelLevels];  // wavelet matrix of S_alpha, most significant bit first
    uint32_t level_zeros[kMaxLabelLevels] = {};   // zeros of each level: where its ones go at the next
    uint32_t level_count = 0;                     // the longest code's length
    // 256 entries: a byte's code << 4 | its length, kNoCode where no edge has the byte.
    const uint16_t* code_of_byte = nullptr;
    // 256 entries: C[c] less where c's labels start after its code's last
    // level (u32 arithmetic wraps): the child's node from a rank walk's end.
    const uint32_t* child_base = nullptr;
    BitRankView last_edge;                        // S_last, one bit per edge
    BitRankView internal;                         // one bit per node
    BitRankView terminal;                         // one bit per node

    // Edges whose label has the code among edges [0, begin) and [0, end),
    // each offset by where those labels start after the code's last level:
    // rank_c on S_alpha at both ends in one walk of the code's levels. False
    // as soon as no edge in [begin, end) has the code's bits so far (a miss
    // need not walk every level).
    INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE bool code_ranks(uint16_t code, uint32_t& begin, uint32_t& end) const {
        const uint32_t length = code & 15u;
        const uint32_t bits_of_code = code >> 4;
        for (uint32_t level = 0; level < length; ++level) {
            const BitRankView& bits = label_levels[level];
            uint32_t ones_begin, ones_end;
            bits.rank1_pair(begin, end, ones_begin, ones_end);
            if ((bits_of_code >> (length - 1 - level)) & 1u) {
                begin = level_zeros[level] + ones_begin;
                end = level_zeros[level] + ones_end;
            } else {
                begin -= ones_begin;
                end -= ones_end;
            }
            if (begin == end) return false;
        }
        return true;
    }

    // The child of `node` by `label`, or false when it has none.
    INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE bool child(uint32_t& node, unsigned char label) const {
        const uint16_t code = code_of_byte[label];
        if (code == kNoCode || !internal.get(node)) return false;
        const uint32_t parents_before = internal.rank1(node);
        uint32_t begin = parents_before == 0 ? 0 : last_edge.select1(parents_before - 1) + 1;
        uint32_t end = last_edge.next_one(begin) + 1;
        if (!code_ranks(code, begin, end)) return false;
        node = child_base[label] + begin;
        return true;
    }

    // The node of bytes[0, length), walked from its last byte; false when the trie has none.
    INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE bool walk(const unsigned char* bytes, uint32_t length, uint32_t& node) const {
        node = 0;
        for (uint32_t i = length; i > 0; --i)
            if (!child(node, bytes[i - 1])) return false;
        return true;
    }

    // The term's index in byte-wise order, or kTermNotFound.
    INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE uint64_t find(const unsigned char* bytes, uint32_t length) const {
        uint32_t node;
        if (!walk(bytes, length, node) || !terminal.get(node)) return kTermNotFound;
        return terminal.rank1(node);
    }

    // The longest term that is a prefix of bytes[0, length): its index, and
    // its length in `matched`; kTermNotFound (matched 0) when none is. A
    // backward walk cannot extend a prefix by a byte, so each length is
    // walked anew, longest first: up to length²/2 steps (most walks stop at
    // their first bytes); find() is the lookup to use where terms are whole.
    INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE uint64_t longest_prefix(const unsigned char* bytes, uint32_t length, uint32_t& matched) const {
        for (uint32_t prefix = length + 1; prefix > 0; --prefix) {
            const uint64_t found = find(bytes, prefix - 1);
            if (found != kTermNotFound) {
                matched = prefix - 1;
                return found;
            }
        }
        matched = 0;
        return kTermNotFound;
    }
};

// Where an XbwTrieView's arrays sit in its flat buffer (offsets in words).
struct XbwTrieSections {
    BitRankSections label_levels[kMaxLabelLevels];
    uint32_t level_zeros[kMaxLabelLevels] = {};
    uint32_t level_count = 0;
    uint32_t symbol_count = 0;  // bytes that label an edge (the builder's report; lookups need only the codes)
    uint64_t code_of_byte_offset = 0;
    uint64_t child_base_offset = 0;
    BitRankSections last_edge;
    BitRankSections internal;
    BitRankSections terminal;

    INVIDX_HOST_DEVICE XbwTrieView view(const uint64_t* base) const {
        XbwTrieView view;
        for (unsigned level = 0; level < kMaxLabelLevels; ++level) {
            view.label_levels[level] = label_levels[level].view(base);
            view.level_zeros[level] = level_zeros[level];
        }
        view.level_count = level_count;
        view.code_of_byte = reinterpret_cast<const uint16_t*>(base + code_of_byte_offset);
        view.child_base = reinterpret_cast<const uint32_t*>(base + child_base_offset);
        view.last_edge = last_edge.view(base);
        view.internal = internal.view(base);
        view.terminal = terminal.view(base);
        return view;
    }
};

}  // namespace invidx::lexicon
