#include "analysis/token_cache.hpp"

#include <bit>
#include <cstring>

#include "analysis/term_hash.hpp"

namespace invidx {

TokenCache::TokenCache(const std::vector<std::string>& stopwords, const std::string& stemmer, size_t slots)
    : stopwords_(stopwords), stemmer_(stemmer) {
    const size_t count = std::bit_ceil(slots < 1 ? size_t{1} : slots);
    entries_.resize(count + 1);
    long_stems_.resize(count + 1);
    mask_ = count - 1;
}

void TokenCache::fill(Entry& entry, std::string_view token, uint64_t h) {
    entry.stopword = stopwords_.contains(token);
    entry.stem_length = 0;
    entry.stem_hash = 0;
    if (!entry.stopword) {
        const std::string_view stem = stemmer_.stem(token);
        entry.stem_hash = stem == token ? h : hash_term(stem);
        if (stem.size() <= kInlineStemBytes) {
            entry.stem_length = static_cast<uint8_t>(stem.size());
            std::memcpy(entry.stem, stem.data(), stem.size());
        } else {
            entry.stem_length = kLongStem;
            long_stems_[static_cast<size_t>(&entry - entries_.data())].assign(stem);
        }
    }
    entry.stamp = 0;
}

TokenCache::Entry& TokenCache::lookup(std::string_view token, uint64_t h) {
    if (token.size() > kInlineTokenBytes) {
        Entry& overflow = entries_.back();
        overflow.tag = 0;  // never a hit: its token is not kept
        fill(overflow, token, h);
        return overflow;
    }
    const uint64_t tag = h | 1;
    Entry& entry = entries_[h & mask_];
    if (entry.tag == tag && entry.token_length == token.size() && same_bytes(entry.token, token.data(), token.size())) {
        return entry;
    }
    entry.tag = tag;
    entry.token_length = static_cast<uint8_t>(token.size());
    std::memcpy(entry.token, token.data(), token.size());
    fill(entry, token, h);
    return entry;
}

void TokenCache::clear_stamps() {
    for (Entry& entry : entries_) entry.stamp = 0;
}

}  // namespace invidx
