// Builds the XBW trie (lexicon/xbw_trie.hpp) of a dictionary on the host:
// terms in strictly increasing byte-wise order, as dictionary.bin keeps them,
// a term's index being its position; find() answers that index.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "lexicon/flat_buffer.hpp"
#include "lexicon/xbw_trie.hpp"

namespace invidx::lexicon {

class XbwTrie {
public:
    // term(i) for 0 <= i < count, strictly increasing byte-wise (an Error
    // naming the pair otherwise); the views it returns are read during the call only.
    XbwTrie(uint64_t count, const std::function<std::string_view(uint64_t)>& term);
    explicit XbwTrie(const std::vector<std::string_view>& terms);

    XbwTrieView view() const { return sections_.view(buffer_.words().data()); }
    // The same view over a copy of buffer() elsewhere (a device's memory).
    const XbwTrieSections& sections() const { return sections_; }
    const std::vector<uint64_t>& buffer() const { return buffer_.words(); }
    uint64_t bytes() const { return buffer_.bytes(); }
    uint64_t node_count() const { return node_count_; }
    uint64_t term_count() const { return term_count_; }

private:
    FlatBuffer buffer_;
    XbwTrieSections sections_;
    uint64_t node_count_ = 0;
    uint64_t term_count_ = 0;
};

}  // namespace invidx::lexicon
