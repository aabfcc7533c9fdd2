#include "analysis/stem_cache.hpp"

#include <bit>

#include "analysis/term_hash.hpp"

namespace invidx {

CachedStemmer::CachedStemmer(const std::string& algorithm, size_t slots)
    : stemmer_(algorithm), slots_(stemmer_.identity() ? 0 : std::bit_ceil(slots < 1 ? size_t{1} : slots)),
      mask_(slots_.empty() ? 0 : slots_.size() - 1) {
    tags_.assign(slots_.size(), 0);
}

CachedStemmer::Stem CachedStemmer::stem_hashed(std::string_view token) {
    const uint64_t h = hash_term(token);
    if (slots_.empty()) return {token, h};  // "none": nothing to remember
    const size_t index = h & mask_;
    const uint64_t tag = h | 1;
    Slot& slot = slots_[index];
    if (tags_[index] != tag || slot.token.size() != token.size() ||
        !same_bytes(slot.token.data(), token.data(), token.size())) {
        slot.token.assign(token);
        slot.stem.assign(stemmer_.stem(token));
        slot.stem_hash = slot.stem == token ? h : hash_term(slot.stem);
        tags_[index] = tag;
    }
    return {slot.stem, slot.stem_hash};
}

}  // namespace invidx
