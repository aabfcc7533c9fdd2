// Every term's partial-list pointers (Wei & JaJa §III.F), in run order, for
// one indexer: chains in one shared arena, since millions of terms make a
// container per term too costly. A term keeps only its Chain (8 bytes).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "invidx/error.hpp"
#include "invidx/messages.hpp"

namespace invidx {

class PartialListRefs {
public:
    static constexpr uint32_t kNone = UINT32_MAX;
    struct Chain {
        uint32_t first = kNone;
        uint32_t last = kNone;
    };

    // Throws invidx::Error (node "index") past 2^32-1 pointers.
    void append(Chain& chain, const PartialListRef& ref, uint32_t indexer_id) {
        ensure(nodes_.size() < kNone,
               "indexer " + std::to_string(indexer_id) + " has more than 2^32-1 partial lists",
               ErrorContext{.node = "index", .file = {}, .record = {}, .byte_offset = {}});
        const auto node = static_cast<uint32_t>(nodes_.size());
        nodes_.push_back(Node{ref, kNone});
        if (chain.last == kNone) {
            chain.first = node;
        } else {
            nodes_[chain.last].next = node;
        }
        chain.last = node;
    }

    // The chain's pointers, in run order.
    std::vector<PartialListRef> list(const Chain& chain) const {
        std::vector<PartialListRef> out;
        for (uint32_t node = chain.first; node != kNone; node = nodes_[node].next) out.push_back(nodes_[node].ref);
        return out;
    }

    size_t memory_bytes() const { return nodes_.capacity() * sizeof(Node); }

    // A term as the indexers export it: the collection's prefix put back in
    // front of the stored key, and the chain's pointers.
    DictionaryTerm exported_term(std::string_view prefix, std::string_view key, uint32_t collection, uint64_t df,
                                 uint64_t cf, const Chain& chain) const {
        DictionaryTerm term;
        term.term.reserve(prefix.size() + key.size());
        term.term.append(prefix).append(key);
        term.collection = collection;
        term.df = df;
        term.cf = cf;
        term.lists = list(chain);
        return term;
    }

private:
    struct Node {
        PartialListRef ref;
        uint32_t next = kNone;
    };
    std::vector<Node> nodes_;
};

}  // namespace invidx
