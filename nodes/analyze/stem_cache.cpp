#include "nodes/analyze/stem_cache.hpp"

#include <bit>

#include "nodes/analyze/term_hash.hpp"

namespace invidx {

CachedStemmer::CachedStemmer(const std::string& algorithm, size_t slots)
    : stemmer_(algorithm), slots_(stemmer_.identity() ? 0 : std::bit_ceil(slots < 1 ? size_t{1} : slots)),
      mask_(slots_.empty() ? 0 : slots_.size() - 1) {}

std::string_view CachedStemmer::stem(std::string_view token) {
    if (slots_.empty()) return token;  // "none": nothing to remember
    Slot& slot = slots_[hash_term(token) & mask_];
    if (!slot.filled || slot.token != token) {
        slot.token.assign(token);
        slot.stem.assign(stemmer_.stem(token));
        slot.filled = true;
    }
    return slot.stem;
}

}  // namespace invidx
