// The dictionary partition of CONTENT.md §8 (Wei & JaJa's trie collections): a term
// of 4+ bytes starting with three letters a-z belongs to the prefix
// collection of those letters and is stored without them; every other term
// falls in one of 1,024 hashed collections.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "invidx/messages.hpp"
#include "analysis/term_collection.hpp"

namespace invidx {

// 32-bit FNV-1a of the whole term (term_collection.hpp): the hashed
// collection is this value mod 1,024.
constexpr uint32_t fnv1a_32(std::string_view bytes) { return fnv1a_32_bytes(bytes.data(), bytes.size()); }

// CONTENT.md §8 collection of `term`: 1024 + 676*(c0-'a') + 26*(c1-'a') + (c2-'a')
// for a prefix term, fnv1a_32(term) % 1024 otherwise (term_collection.hpp,
// shared with device code).
constexpr uint32_t collection_of(std::string_view term) { return term_collection(term.data(), term.size()); }

// 3 for a prefix collection, 0 for a hashed one. Throws for collection >= kCollections.
uint32_t collection_prefix_length(uint32_t collection);

// The three letters every term of a prefix collection starts with ("" for a
// hashed collection). Throws for collection >= kCollections.
std::string collection_prefix(uint32_t collection);

}  // namespace invidx
