// Remembers recent stems: libstemmer costs far more per token than the rest
// of the analysis, and word frequencies are Zipfian, so most tokens of a
// document were stemmed a moment ago. Stemming is a pure function, so the
// cache cannot change a term (SPEC §4.2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/stem.hpp"

namespace invidx {

// A direct-mapped cache in front of a stemmer: each token hashes to one slot,
// and a miss overwrites that slot. Slots keep their strings' capacity, so a
// warm cache stems without allocating. One per thread, like the stemmer.
class CachedStemmer {
public:
    explicit CachedStemmer(const std::string& algorithm, size_t slots = size_t{1} << 15);

    // The stem of `token`, valid until the next call.
    std::string_view stem(std::string_view token) { return stem_hashed(token).term; }

    // The stem with its hash_term() (term_hash.hpp), which the cache keeps,
    // so that the caller's term table need not hash it again.
    struct Stem {
        std::string_view term;
        uint64_t hash;
    };
    Stem stem_hashed(std::string_view token);

private:
    struct Slot {
        std::string token;
        std::string stem;
        uint64_t stem_hash = 0;
    };
    PorterStemmer stemmer_;
    // hash_term(token) | 1 of each slot's token (0: empty), apart from the
    // slots so that a lookup touches one small word before the strings.
    std::vector<uint64_t> tags_;
    std::vector<Slot> slots_;
    size_t mask_;
};

}  // namespace invidx
