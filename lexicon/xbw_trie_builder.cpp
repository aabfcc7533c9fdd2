#include "lexicon/xbw_trie_builder.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <queue>
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

// The labels' codes for the wavelet matrix: code_of_byte as XbwTrieView
// reads it (code << 4 | length, kNoCode for bytes no edge has).
struct LabelCodes {
    std::vector<uint16_t> code_of_byte = std::vector<uint16_t>(256, kNoCode);
    uint32_t symbol_count = 0;
    uint32_t levels = 0;

    bool bit(unsigned char byte, uint32_t level) const {
        const uint32_t length = code_of_byte[byte] & 15u;
        return level < length && ((code_of_byte[byte] >> 4) >> (length - 1 - level)) & 1u;
    }
};

// Huffman code lengths over the counts (0: absent), then lengths over
// limit cut to it and the Kraft sum restored by lengthening the longest
// codes under the limit, rarest first (the usual length-limiting
// heuristic: σ <= 2^limit makes it end), then canonical codes.
LabelCodes label_codes(const std::vector<uint64_t>& counts) {
    std::vector<unsigned> present;
    for (unsigned c = 0; c < 256; ++c)
        if (counts[c] != 0) present.push_back(c);
    LabelCodes codes;
    codes.symbol_count = static_cast<uint32_t>(present.size());
    if (present.empty()) return codes;
    const uint32_t limit = present.size() == 1 ? 0 : bits_for(present.size() - 1);
    std::vector<uint32_t> length(256, 0);
    if (present.size() > 1) {
        // Huffman's merges over a heap of (count, tree node); leaves are the present bytes.
        std::vector<uint32_t> parent(2 * present.size(), 0);
        using Entry = std::pair<uint64_t, uint32_t>;
        std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
        for (uint32_t k = 0; k < present.size(); ++k) heap.emplace(counts[present[k]], k);
        auto next = static_cast<uint32_t>(present.size());
        while (heap.size() > 1) {
            const Entry first = heap.top();
            heap.pop();
            const Entry second = heap.top();
            heap.pop();
            parent[first.second] = parent[second.second] = next;
            heap.emplace(first.first + second.first, next++);
        }
        const uint32_t root = next - 1;
        for (uint32_t k = 0; k < present.size(); ++k) {
            uint32_t depth = 0;
            for (uint32_t node = k; node != root; node = parent[node]) ++depth;
            length[present[k]] = std::min(depth, limit);
        }
        // Kraft sum in units of 2^-limit: at most 2^limit for a prefix code.
        auto kraft = [&] {
            uint64_t sum = 0;
            for (const unsigned c : present) sum += uint64_t{1} << (limit - length[c]);
            return sum;
        };
        for (uint64_t sum = kraft(); sum > (uint64_t{1} << limit); sum = kraft()) {
            unsigned pick = 256;
            for (const unsigned c : present)
                if (length[c] < limit && (pick == 256 || length[c] > length[pick] ||
                                          (length[c] == length[pick] && counts[c] < counts[pick])))
                    pick = c;
            ++length[pick];
        }
    }
    // Canonical codes: by length, then byte.
    std::vector<unsigned> by_length = present;
    std::stable_sort(by_length.begin(), by_length.end(), [&](unsigned a, unsigned b) { return length[a] < length[b]; });
    uint32_t code = 0;
    for (size_t k = 0; k < by_length.size(); ++k) {
        if (k > 0) code = (code + 1) << (length[by_length[k]] - length[by_length[k - 1]]);
        codes.code_of_byte[by_length[k]] = static_cast<uint16_t>(code << 4 | length[by_length[k]]);
        codes.levels = std::max(codes.levels, length[by_length[k]]);
    }
    return codes;
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

    // Each label byte's code: Huffman over the labels' counts, limited to
    // the fixed-length code's bits so that no lookup walks more levels than
    // a fixed-length code would make it.
    std::vector<uint64_t> label_counts(256, 0);
    for (const unsigned char c : labels) ++label_counts[c];
    const LabelCodes codes = label_codes(label_counts);
    sections_.symbol_count = codes.symbol_count;
    sections_.level_count = codes.levels;

    // The wavelet matrix: level l holds bit l of each label's code (zero
    // past the code's end), the labels stably partitioned by that bit
    // (zeros first) before the next level.
    std::vector<unsigned char> current = labels, next_level(labels.size());
    for (uint32_t level = 0; level < codes.levels; ++level) {
        std::vector<bool> bits(current.size());
        uint32_t zeros = 0;
        for (size_t i = 0; i < current.size(); ++i) {
            bits[i] = codes.bit(current[i], level);
            if (!bits[i]) ++zeros;
        }
        sections_.label_levels[level] = append_bit_rank(buffer_, bits);
        sections_.level_zeros[level] = zeros;
        size_t zero_at = 0, one_at = zeros;
        for (size_t i = 0; i < current.size(); ++i) next_level[bits[i] ? one_at++ : zero_at++] = current[i];
        current.swap(next_level);
    }
    // C[c], the first node labelled c (nodes labelled c follow the root and
    // every node with a smaller label), less where c's labels start after
    // its code's last level (the begin of a rank walk from position 0).
    std::vector<uint32_t> child_base(256, 0);
    {
        const XbwTrieView partial = sections_.view(buffer_.words().data());
        uint32_t first_child = 1;
        for (unsigned c = 0; c < 256; ++c) {
            if (codes.code_of_byte[c] == kNoCode) continue;
            // A walk from [0, edges) keeps the range non-empty: the byte occurs.
            uint32_t run_start = 0, run_end = static_cast<uint32_t>(labels.size());
            partial.code_ranks(codes.code_of_byte[c], run_start, run_end);
            child_base[c] = first_child - run_start;  // wraps: the lookup adds the run offset back
            first_child += static_cast<uint32_t>(label_counts[c]);
        }
    }
    sections_.code_of_byte_offset = buffer_.append(codes.code_of_byte);
    sections_.child_base_offset = buffer_.append(child_base);
    sections_.last_edge = append_bit_rank(buffer_, last_edge, SelectSupport::ones);
    sections_.internal = append_bit_rank(buffer_, internal);
    sections_.terminal = append_bit_rank(buffer_, terminal);
}

}  // namespace invidx::lexicon
