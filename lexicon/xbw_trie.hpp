// The XBW transform of the dictionary's trie (Ferragina et al.'s xbw; the
// prefix-matching form of Hon et al. that Wakatsuki, Keyaki & Miyazaki put
// on GPUs, §2.4 and §3.1): a term's bytes are walked down the trie with rank
// operations alone, so the dictionary fits in a few bytes per term instead of
// a state-transition table's 256 pointers per node, and host and device run
// the same lookup over the same flat buffer.
//
// Nodes are numbered in the order of their reverse prefixes (the node's
// label, its parent's, ... up to the root), the root first. Then the nodes
// labelled c are consecutive, ordered as their parents are, and a node's
// child by c is
//     C[c] + (edges labelled c leaving nodes numbered below it)
// the paper's rank(x, B_c) + C[c]. One B_c per byte value would cost 256
// bits a node; instead the edges, listed parent by parent in node order with
// each parent's labels ascending, form the XBW sequences:
//   S_alpha  the edge labels, in a wavelet matrix (8 levels of BitRankView)
//            so that rank_c(S_alpha, i) is 8 binary rank pairs;
//   S_last   1 at the last edge of each parent: a parent's edges run from
//            just after the previous parent's last edge;
//   internal 1 at nodes with children (leaves own no edges);
//   terminal 1 at nodes where a term ends (a term that is a prefix of
//            another ends at an internal node);
//   term ids the term's index in the dictionary's byte-wise order, for the
//            terminal nodes in node order, in ceil(log2 T) bits each; or
//            none, when ids in trie order will do (a term's id is then the
//            rank of its node among terminal nodes, a dense id in [0, T)
//            whose statistics the caller stores in that order, as the
//            paper's converting step needs only some dense id): a third
//            fewer bytes.
#pragma once

#include <cstdint>

#include "invidx/host_device.hpp"
#include "lexicon/bit_rank.hpp"

namespace invidx::lexicon {

inline constexpr uint64_t kTermNotFound = ~uint64_t{0};
inline constexpr unsigned kLabelBits = 8;

struct XbwTrieView {
    BitRankView label_levels[kLabelBits];  // wavelet matrix of S_alpha, most significant bit first
    uint32_t level_zeros[kLabelBits] = {};   // zeros of each level: where its ones go at the next
    const uint32_t* first_child_of_label = nullptr;  // C[c]: 256 entries
    const uint32_t* label_start = nullptr;   // where label c's run starts after the last level: 256 entries
    BitRankView last_edge;                   // S_last, one bit per edge
    BitRankView internal;                    // one bit per node
    BitRankView terminal;                    // one bit per node
    const uint64_t* term_ids = nullptr;      // terminal.ones entries of term_id_bits bits
    uint32_t term_id_bits = 0;
    bool ids_in_trie_order = false;          // no term_ids: a term's id is its terminal rank

    // Edges labelled `label` among edges [0, begin) and [0, end): rank_c on
    // S_alpha at both ends in one walk of the levels.
    INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE void label_ranks(unsigned char label, uint32_t& begin, uint32_t& end) const {
        for (unsigned level = 0; level < kLabelBits; ++level) {
            const BitRankView& bits = label_levels[level];
            if ((label >> (kLabelBits - 1 - level)) & 1u) {
                begin = level_zeros[level] + bits.rank1(begin);
                end = level_zeros[level] + bits.rank1(end);
            } else {
                begin = bits.rank0(begin);
                end = bits.rank0(end);
            }
        }
        begin -= label_start[label];
        end -= label_start[label];
    }

    // The child of `node` by `label`, or false when it has none.
    INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE bool child(uint32_t& node, unsigned char label) const {
        if (!internal.get(node)) return false;
        const uint32_t parents_before = internal.rank1(node);
        uint32_t begin = parents_before == 0 ? 0 : last_edge.select1(parents_before - 1) + 1;
        uint32_t end = last_edge.next_one(begin) + 1;
        label_ranks(label, begin, end);
        if (end == begin) return false;
        node = first_child_of_label[label] + begin;
        return true;
    }

    INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE uint64_t term_id_of(uint32_t node) const {
        const uint64_t index = terminal.rank1(node);
        if (ids_in_trie_order) return index;
        if (term_id_bits == 0) return 0;
        const uint64_t bit = index * term_id_bits;
        const uint64_t mask = term_id_bits == 64 ? ~uint64_t{0} : (uint64_t{1} << term_id_bits) - 1;
        uint64_t value = term_ids[bit / 64] >> (bit % 64);
        if (bit % 64 + term_id_bits > 64) value |= term_ids[bit / 64 + 1] << (64 - bit % 64);
        return value & mask;
    }

    // The term's index in byte-wise order, or kTermNotFound.
    INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE uint64_t find(const unsigned char* bytes, uint32_t length) const {
        uint32_t node = 0;
        for (uint32_t i = 0; i < length; ++i)
            if (!child(node, bytes[i])) return kTermNotFound;
        return terminal.get(node) ? term_id_of(node) : kTermNotFound;
    }

    // The longest term that is a prefix of bytes[0, length): its index, and
    // its length in `matched`; kTermNotFound (matched 0) when none is.
    INVIDX_HOST_DEVICE INVIDX_LEXICON_INLINE uint64_t longest_prefix(const unsigned char* bytes, uint32_t length, uint32_t& matched) const {
        uint32_t node = 0;
        uint32_t best_node = 0;
        bool found = terminal.get(0);
        matched = 0;
        for (uint32_t i = 0; i < length; ++i) {
            if (!child(node, bytes[i])) break;
            if (terminal.get(node)) {
                found = true;
                best_node = node;
                matched = i + 1;
            }
        }
        return found ? term_id_of(best_node) : kTermNotFound;
    }
};

// Where an XbwTrieView's arrays sit in its flat buffer (offsets in words).
struct XbwTrieSections {
    BitRankSections label_levels[kLabelBits];
    uint32_t level_zeros[kLabelBits] = {};
    uint64_t first_child_of_label_offset = 0;
    uint64_t label_start_offset = 0;
    BitRankSections last_edge;
    BitRankSections internal;
    BitRankSections terminal;
    uint64_t term_ids_offset = 0;
    uint32_t term_id_bits = 0;
    bool ids_in_trie_order = false;

    INVIDX_HOST_DEVICE XbwTrieView view(const uint64_t* base) const {
        XbwTrieView view;
        for (unsigned level = 0; level < kLabelBits; ++level) {
            view.label_levels[level] = label_levels[level].view(base);
            view.level_zeros[level] = level_zeros[level];
        }
        view.first_child_of_label = reinterpret_cast<const uint32_t*>(base + first_child_of_label_offset);
        view.label_start = reinterpret_cast<const uint32_t*>(base + label_start_offset);
        view.last_edge = last_edge.view(base);
        view.internal = internal.view(base);
        view.terminal = terminal.view(base);
        view.term_ids = base + term_ids_offset;
        view.term_id_bits = term_id_bits;
        view.ids_in_trie_order = ids_in_trie_order;
        return view;
    }
};

}  // namespace invidx::lexicon
