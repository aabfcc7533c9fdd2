#include "lexicon/xbw_trie_builder.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include "invidx/error.hpp"
#include "lexicon/bit_rank_builder.hpp"

namespace invidx::lexicon {
namespace {

constexpr uint32_t kNoNode = std::numeric_limits<uint32_t>::max();

// The trie in creation order: children of a node are created in increasing
// label order because the terms arrive sorted.
struct PlainTrie {
    std::vector<uint32_t> parent{kNoNode};
    std::vector<unsigned char> label{0};
    std::vector<uint32_t> first_child{kNoNode};
    std::vector<uint32_t> next_sibling{kNoNode};
    std::vector<uint32_t> last_child{kNoNode};
    std::vector<uint64_t> term_at{kTermNotFound};

    uint32_t add_child(uint32_t node, unsigned char byte) {
        if (parent.size() >= kNoNode) throw Error("lexicon: the dictionary's trie has over 2^32 - 1 nodes");
        const auto child = static_cast<uint32_t>(parent.size());
        parent.push_back(node);
        label.push_back(byte);
        first_child.push_back(kNoNode);
        next_sibling.push_back(kNoNode);
        last_child.push_back(kNoNode);
        term_at.push_back(kTermNotFound);
        if (last_child[node] == kNoNode) first_child[node] = child;
        else next_sibling[last_child[node]] = child;
        last_child[node] = child;
        return child;
    }
};

std::string printable(std::string_view term) {
    std::string out;
    for (const char c : term) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte < 0x7f) out.push_back(c);
        else {
            static const char* hex = "0123456789abcdef";
            out += "\\x";
            out.push_back(hex[byte >> 4]);
            out.push_back(hex[byte & 15]);
        }
    }
    return out;
}

PlainTrie build_plain_trie(uint64_t count, const std::function<std::string_view(uint64_t)>& term) {
    PlainTrie trie;
    std::string previous;
    std::vector<uint32_t> path{0};  // path[d] = node of previous's first d bytes
    for (uint64_t i = 0; i < count; ++i) {
        const std::string_view current = term(i);
        if (i > 0 && !(std::string_view(previous) < current))
            throw Error("lexicon: terms are not in strictly increasing byte-wise order: '" + printable(previous) + "' then '" +
                        printable(current) + "' at " + std::to_string(i));
        size_t common = 0;
        while (common < previous.size() && common < current.size() && previous[common] == current[common]) ++common;
        path.resize(common + 1);
        for (size_t d = common; d < current.size(); ++d) path.push_back(trie.add_child(path.back(), static_cast<unsigned char>(current[d])));
        trie.term_at[path.back()] = i;
        previous.assign(current);
    }
    return trie;
}

// Reverse-prefix order: compare labels walking up to the root; the root
// (the empty string) is first.
std::vector<uint32_t> reverse_prefix_order(const PlainTrie& trie) {
    std::vector<uint32_t> order(trie.parent.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        while (a != b) {
            if (a == 0) return true;
            if (b == 0) return false;
            if (trie.label[a] != trie.label[b]) return trie.label[a] < trie.label[b];
            a = trie.parent[a];
            b = trie.parent[b];
        }
        return false;
    });
    return order;
}

uint32_t bits_for(uint64_t largest) {
    uint32_t bits = 0;
    while (bits < 64 && (largest >> bits) != 0) ++bits;
    return bits;
}

}  // namespace

XbwTrie::XbwTrie(const std::vector<std::string_view>& terms, XbwTermIds ids)
    : XbwTrie(terms.size(), [&](uint64_t i) { return terms[i]; }, ids) {}

XbwTrie::XbwTrie(uint64_t count, const std::function<std::string_view(uint64_t)>& term, XbwTermIds ids) {
    const PlainTrie trie = build_plain_trie(count, term);
    const std::vector<uint32_t> order = reverse_prefix_order(trie);
    const auto nodes = static_cast<uint32_t>(order.size());
    node_count_ = nodes;
    term_count_ = count;

    // The edges parent by parent in node order, and the per-node bits.
    std::vector<unsigned char> labels;
    labels.reserve(nodes - 1);
    std::vector<bool> last_edge, internal(nodes, false), terminal(nodes, false);
    last_edge.reserve(nodes - 1);
    std::vector<uint64_t> term_ids;
    for (uint32_t id = 0; id < nodes; ++id) {
        const uint32_t node = order[id];
        if (trie.term_at[node] != kTermNotFound) {
            terminal[id] = true;
            term_ids.push_back(trie.term_at[node]);
        }
        if (trie.first_child[node] == kNoNode) continue;
        internal[id] = true;
        for (uint32_t child = trie.first_child[node]; child != kNoNode; child = trie.next_sibling[child]) {
            labels.push_back(trie.label[child]);
            last_edge.push_back(trie.next_sibling[child] == kNoNode);
        }
    }

    // C[c]: the first node labelled c; nodes labelled c follow the root and
    // every node with a smaller label.
    std::vector<uint32_t> first_child_of_label(256, 0);
    {
        std::vector<uint32_t> label_counts(256, 0);
        for (const unsigned char c : labels) ++label_counts[c];
        uint32_t next = 1;
        for (unsigned c = 0; c < 256; ++c) {
            first_child_of_label[c] = next;
            next += label_counts[c];
        }
    }

    // The wavelet matrix: level l holds bit (7 − l) of each label, the labels
    // stably partitioned by that bit (zeros first) before the next level.
    std::vector<unsigned char> current = labels, next_level(labels.size());
    for (unsigned level = 0; level < kLabelBits; ++level) {
        const unsigned shift = kLabelBits - 1 - level;
        std::vector<bool> bits(current.size());
        uint32_t zeros = 0;
        for (size_t i = 0; i < current.size(); ++i) {
            bits[i] = (current[i] >> shift) & 1u;
            if (!bits[i]) ++zeros;
        }
        sections_.label_levels[level] = append_bit_rank(buffer_, bits);
        sections_.level_zeros[level] = zeros;
        size_t zero_at = 0, one_at = zeros;
        for (const unsigned char c : current) next_level[((c >> shift) & 1u) ? one_at++ : zero_at++] = c;
        current.swap(next_level);
    }
    // Where each label's run starts after the last level: the begin of a
    // rank walk from position 0 (XbwTrieView::label_ranks).
    std::vector<uint32_t> label_start(256, 0);
    {
        const XbwTrieView partial = sections_.view(buffer_.words().data());
        for (unsigned c = 0; c < 256; ++c) {
            uint32_t position = 0;
            for (unsigned level = 0; level < kLabelBits; ++level) {
                const BitRankView& bits = partial.label_levels[level];
                position = ((c >> (kLabelBits - 1 - level)) & 1u) ? partial.level_zeros[level] + bits.rank1(position)
                                                                  : bits.rank0(position);
            }
            label_start[c] = position;
        }
    }
    sections_.first_child_of_label_offset = buffer_.append(first_child_of_label);
    sections_.label_start_offset = buffer_.append(label_start);
    sections_.last_edge = append_bit_rank(buffer_, last_edge, SelectSupport::ones);
    sections_.internal = append_bit_rank(buffer_, internal);
    sections_.terminal = append_bit_rank(buffer_, terminal);

    if (ids == XbwTermIds::trie_order) {
        sections_.ids_in_trie_order = true;
        sections_.term_ids_offset = buffer_.append(std::vector<uint64_t>{0});  // a valid address, never read
        trie_order_terms_ = std::move(term_ids);
        return;
    }
    // Term ids packed at bits_for(count − 1) bits, one spare word so that a
    // read of two words never runs past the end.
    const uint32_t id_bits = count <= 1 ? 0 : bits_for(count - 1);
    std::vector<uint64_t> packed(term_ids.size() * id_bits / 64 + 2, 0);
    for (size_t k = 0; k < term_ids.size(); ++k) {
        const uint64_t bit = k * id_bits;
        if (id_bits == 0) break;
        packed[bit / 64] |= term_ids[k] << (bit % 64);
        if (bit % 64 + id_bits > 64) packed[bit / 64 + 1] |= term_ids[k] >> (64 - bit % 64);
    }
    sections_.term_ids_offset = buffer_.append(packed);
    sections_.term_id_bits = id_bits;
}

}  // namespace invidx::lexicon
