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

void check_order(uint64_t count, const std::function<std::string_view(uint64_t)>& term) {
    std::string previous;
    for (uint64_t i = 0; i < count; ++i) {
        const std::string_view current = term(i);
        if (i > 0 && !(std::string_view(previous) < current))
            throw Error("lexicon: terms are not in strictly increasing byte-wise order: '" + printable(previous) + "' then '" +
                        printable(current) + "' at " + std::to_string(i));
        previous.assign(current);
    }
}

// The trie of the terms read backwards, each term's end node holding its
// dictionary index: the reversed terms are inserted in their own sorted
// order, so that a node's children are created in increasing label order.
PlainTrie build_reversed_trie(uint64_t count, const std::function<std::string_view(uint64_t)>& term) {
    std::vector<std::string> reversed(count);
    for (uint64_t i = 0; i < count; ++i) {
        const std::string_view forward = term(i);
        reversed[i].assign(forward.rbegin(), forward.rend());
    }
    std::vector<uint64_t> by_reversed(count);
    std::iota(by_reversed.begin(), by_reversed.end(), uint64_t{0});
    std::sort(by_reversed.begin(), by_reversed.end(), [&](uint64_t a, uint64_t b) { return reversed[a] < reversed[b]; });
    PlainTrie trie;
    std::string_view previous;
    std::vector<uint32_t> path{0};  // path[d] = node of previous's first d bytes
    for (const uint64_t index : by_reversed) {
        const std::string_view current = reversed[index];
        size_t common = 0;
        while (common < previous.size() && common < current.size() && previous[common] == current[common]) ++common;
        path.resize(common + 1);
        for (size_t d = common; d < current.size(); ++d) path.push_back(trie.add_child(path.back(), static_cast<unsigned char>(current[d])));
        trie.term_at[path.back()] = index;
        previous = current;
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

XbwTrie::XbwTrie(const std::vector<std::string_view>& terms) : XbwTrie(terms.size(), [&](uint64_t i) { return terms[i]; }) {}

XbwTrie::XbwTrie(uint64_t count, const std::function<std::string_view(uint64_t)>& term) {
    check_order(count, term);
    const PlainTrie trie = build_reversed_trie(count, term);
    const std::vector<uint32_t> order = reverse_prefix_order(trie);
    const auto nodes = static_cast<uint32_t>(order.size());
    node_count_ = nodes;
    term_count_ = count;

    // The edges parent by parent in node order, and the per-node bits.
    std::vector<unsigned char> labels;
    labels.reserve(nodes - 1);
    std::vector<bool> last_edge, internal(nodes, false), terminal(nodes, false);
    last_edge.reserve(nodes - 1);
    uint64_t terminals = 0;
    for (uint32_t id = 0; id < nodes; ++id) {
        const uint32_t node = order[id];
        if (trie.term_at[node] != kTermNotFound) {
            // The lookup answers a terminal node's rank: it must be the term's index.
            if (trie.term_at[node] != terminals)
                throw Error("lexicon: internal error: the XBW trie's terminal node " + std::to_string(terminals) + " holds term " +
                            std::to_string(trie.term_at[node]));
            terminal[id] = true;
            ++terminals;
        }
        if (trie.first_child[node] == kNoNode) continue;
        internal[id] = true;
        for (uint32_t child = trie.first_child[node]; child != kNoNode; child = trie.next_sibling[child]) {
            labels.push_back(trie.label[child]);
            last_edge.push_back(trie.next_sibling[child] == kNoNode);
        }
    }

    // The symbols: the bytes that label an edge, numbered in byte order, so
    // that nodes ordered by label are ordered by symbol.
    std::vector<uint32_t> label_counts(256, 0);
    for (const unsigned char c : labels) ++label_counts[c];
    std::vector<unsigned char> symbol_of_byte(256, 255);  // 255 >= symbol_count unless all 256 bytes occur
    std::vector<uint32_t> symbol_counts;
    for (unsigned c = 0; c < 256; ++c)
        if (label_counts[c] != 0) {
            symbol_of_byte[c] = static_cast<unsigned char>(symbol_counts.size());
            symbol_counts.push_back(label_counts[c]);
        }
    const auto symbols = static_cast<uint32_t>(symbol_counts.size());
    const uint32_t levels = symbols <= 1 ? 0 : bits_for(symbols - 1);
    sections_.symbol_count = symbols;
    sections_.level_count = levels;

    // The wavelet matrix: level l holds bit (levels − 1 − l) of each symbol,
    // the symbols stably partitioned by that bit (zeros first) before the next level.
    std::vector<unsigned char> current(labels.size()), next_level(labels.size());
    for (size_t i = 0; i < labels.size(); ++i) current[i] = symbol_of_byte[labels[i]];
    for (uint32_t level = 0; level < levels; ++level) {
        const unsigned shift = levels - 1 - level;
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
    // C[s], the first node labelled s (nodes labelled s follow the root and
    // every node with a smaller label), less where s's run starts after the
    // last level (the begin of a rank walk from position 0).
    std::vector<uint32_t> child_base(symbols, 0);
    {
        const XbwTrieView partial = sections_.view(buffer_.words().data());
        uint32_t first_child = 1;
        for (uint32_t symbol = 0; symbol < symbols; ++symbol) {
            // A walk from [0, edges) keeps the range non-empty: the symbol occurs.
            uint32_t run_start = 0, run_end = static_cast<uint32_t>(labels.size());
            partial.symbol_ranks(symbol, run_start, run_end);
            child_base[symbol] = first_child - run_start;  // wraps: the lookup adds the run offset back
            first_child += symbol_counts[symbol];
        }
    }
    sections_.symbol_of_byte_offset = buffer_.append(symbol_of_byte);
    sections_.child_base_offset = buffer_.append(child_base.empty() ? std::vector<uint32_t>{0} : child_base);
    sections_.last_edge = append_bit_rank(buffer_, last_edge, SelectSupport::ones);
    sections_.internal = append_bit_rank(buffer_, internal);
    sections_.terminal = append_bit_rank(buffer_, terminal);
}

}  // namespace invidx::lexicon
