#include "analysis/token_cache.hpp"

#include <bit>
#include <cstring>

#include "analysis/term_hash.hpp"

namespace invidx {

TokenCache::TokenCache(const std::vector<std::string>& stopwords, const std::string& stemmer, size_t slots)
    : stopwords_(stopwords), stemmer_(stemmer) {
    const size_t count = std::bit_ceil(slots < 2 ? size_t{2} : slots);
    entries_.resize(count + 1);
    long_stems_.resize(count + 1);
    set_mask_ = count - 2;
}

void TokenCache::fill(Entry& entry, std::string_view token, uint64_t h, bool kept) {
    entry.stopword = stopwords_.contains(token);
    entry.stem_length = 0;
    entry.stem_offset = 0;
    entry.stem_hash = 0;
    if (!entry.stopword) {
        const std::string_view stem = stemmer_.stem(token);
        entry.stem_hash = stem == token ? h : hash_term(stem);
        const size_t room_from = kept ? token.size() : 0;  // where free bytes begin
        if (kept && stem.size() <= token.size() && same_bytes(stem.data(), token.data(), stem.size())) {
            entry.stem_length = static_cast<uint8_t>(stem.size());  // most stems: a prefix, no copy
        } else if (stem.size() <= kInlineTokenBytes - room_from) {
            entry.stem_offset = static_cast<uint8_t>(room_from);
            entry.stem_length = static_cast<uint8_t>(stem.size());
            std::memcpy(entry.bytes + room_from, stem.data(), stem.size());
        } else {
            entry.stem_length = kLongStem;
            long_stems_[static_cast<size_t>(&entry - entries_.data())].assign(stem);
        }
    }
    entry.stamp = 0;
}

TokenCache::Entry& TokenCache::refill(Entry* set, std::string_view token, uint64_t h) {
    if (token.size() > kInlineTokenBytes) {
        Entry& overflow = entries_.back();
        overflow.tag = 0;  // never a hit: its token is not kept
        fill(overflow, token, h, false);
        return overflow;
    }
    Entry& entry = set[0].recent ? set[1] : set[0];
    use(entry, &entry == &set[0] ? set[1] : set[0]);
    entry.tag = h | 1;
    entry.token_length = static_cast<uint8_t>(token.size());
    std::memcpy(entry.bytes, token.data(), token.size());
    fill(entry, token, h, true);
    return entry;
}

void TokenCache::clear_stamps() {
    for (Entry& entry : entries_) entry.stamp = 0;
}

}  // namespace invidx
