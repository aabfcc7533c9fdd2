// Term -> term index from a compact dictionary structure built from an
// index's dictionary.bin, chosen by name: "xbw" (the succinct XBW trie,
// lexicon/xbw_trie.hpp: fewest bytes) or "hash" (the static hash table,
// lexicon/hashed_terms.hpp: fewest memory reads). Both answer exactly what
// IndexReader::find_term does; their flat buffers are what a device copies.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "lexicon/hashed_terms_builder.hpp"
#include "lexicon/xbw_trie_builder.hpp"
#include "store/index_reader.hpp"

namespace invidx {

enum class TermLookupKind { xbw, hash };

// "xbw" or "hash"; an Error listing both otherwise.
TermLookupKind term_lookup_kind(std::string_view name);
std::string_view term_lookup_name(TermLookupKind kind);
inline constexpr std::string_view kTermLookupNames = "xbw, hash";

class TermLookup {
public:
    TermLookup(const IndexReader& index, TermLookupKind kind);
    // Over terms in strictly increasing byte-wise order (tests, benchmarks).
    TermLookup(const std::vector<std::string_view>& terms, TermLookupKind kind);

    TermLookupKind kind() const { return kind_; }
    std::optional<uint64_t> find(std::string_view term) const;
    // The structure's flat buffer: all it takes to look terms up.
    uint64_t bytes() const;
    const std::variant<lexicon::XbwTrie, lexicon::HashedTerms>& structure() const { return structure_; }

private:
    TermLookupKind kind_;
    std::variant<lexicon::XbwTrie, lexicon::HashedTerms> structure_;
};

}  // namespace invidx
