// What the analyzer has learned about recent tokens: whether each is a stop
// word (CONTENT.md §5), its stem (§4.2) with the stem's hash, and its term in the
// document being analyzed. libstemmer costs far more per token than the rest
// of the analysis, and word frequencies are Zipfian, so most tokens of a
// document were seen a moment ago: a hit costs one hash of the token and one
// cache line, with no copy and no allocation. Stop words and stems are pure
// functions of the token, so the cache cannot change a term.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/stem.hpp"
#include "analysis/term_hash.hpp"
#include "analysis/stopwords.hpp"

namespace invidx {

// A two-way set-associative cache: each token hashes (hash_term) to a set of
// two slots, and a miss overwrites the one used less recently (a direct-
// mapped cache lost a token in four to collisions on a vocabulary half its
// size). Warm, it allocates nothing. One per thread, like the stemmer it owns.
class TokenCache {
public:
    // A token's bytes, and its stem's where they differ, live in the entry
    // itself, so that a lookup reads one cache line per way (two per set)
    // and the whole cache is small enough to stay in the CPU's caches.
    // Tokens of more than kInlineTokenBytes (rare) are analyzed afresh each
    // time; a stem that is not a prefix of its token and does not fit after
    // it is kept in a string beside the entry (rarer still).
    static constexpr size_t kInlineTokenBytes = 35;
    static constexpr uint8_t kLongStem = 0xFF;  // stem_length of a stem kept beside the entry

    struct alignas(64) Entry {
        uint64_t tag = 0;         // hash_term(token) | 1; 0: empty
        uint64_t stem_hash = 0;   // hash_term(stem)
        uint32_t stamp = 0;       // the caller's document stamp that term_index belongs to; 0: none
        uint32_t term_index = 0;  // free for the caller: its term for this token in document `stamp`
        uint8_t token_length = 0;
        uint8_t stem_length = 0;  // or kLongStem
        uint8_t stem_offset = 0;  // of the stem in `bytes`: 0 when it is a prefix of the token
        bool stopword = false;
        bool recent = false;      // used more recently than the other slot of its set
        char bytes[kInlineTokenBytes];  // the token, then the stem if it is not the token's prefix
    };
    static_assert(sizeof(Entry) == 64, "one cache line per entry");
    static_assert(kInlineTokenBytes >= kShortTermBytes, "lookup_short reads 16 bytes of an entry");

    // `slots` is rounded up to a power of two, at least 2. The default, 4 MiB
    // of entries, is where a larger cache stops paying: fewer tokens are
    // stemmed again than with half or a quarter of it, and twice as many
    // entries were no faster (docs/PERFORMANCE.md, "The CPU parser").
    TokenCache(const std::vector<std::string>& stopwords, const std::string& stemmer,
               size_t slots = size_t{1} << 16);

    // The entry of `token`, whose hash_term() is `h`; filled now on a miss.
    // Valid until the next call. Its stamp is 0 when it was (re)filled.
    Entry& lookup(std::string_view token, uint64_t h) {
        Entry* const set = &entries_[h & set_mask_];
        // The common case, inline in the caller's loop.
        if (token.size() <= kInlineTokenBytes) {
            if (holds(set[0], token, h)) return use(set[0], set[1]);
            if (holds(set[1], token, h)) return use(set[1], set[0]);
        }
        return refill(set, token, h);
    }

    // lookup() for a token of at most kShortTermBytes whose words are
    // `words` (padded_short_term_words or short_term_words): its bytes are
    // compared as two masked words, without a branch on its length.
    Entry& lookup_short(std::string_view token, ShortTermWords words, uint64_t h) {
        Entry* const set = &entries_[h & set_mask_];
        if (holds_short(set[0], token.size(), words, h)) return use(set[0], set[1]);
        if (holds_short(set[1], token.size(), words, h)) return use(set[1], set[0]);
        return refill(set, token, h);
    }

    // Starts loading the entry of the token whose hash_term() is `h`, for a
    // lookup a little later.
    void prefetch(uint64_t h) const {
        const auto* set = reinterpret_cast<const char*>(&entries_[h & set_mask_]);
        __builtin_prefetch(set);
        __builtin_prefetch(set + sizeof(Entry));
    }

    // The stem of `entry`'s token (meaningless for a stop word).
    std::string_view stem(const Entry& entry) const {
        if (entry.stem_length != kLongStem) return {entry.bytes + entry.stem_offset, entry.stem_length};
        return long_stems_[static_cast<size_t>(&entry - entries_.data())];
    }

    // Sets every entry's stamp to 0: for callers whose stamps wrapped around.
    void clear_stamps();

private:
    static bool holds(const Entry& entry, std::string_view token, uint64_t h) {
        return entry.tag == (h | 1) && entry.token_length == token.size() &&
               same_bytes(entry.bytes, token.data(), token.size());
    }
    static bool holds_short(const Entry& entry, size_t length, ShortTermWords words, uint64_t h) {
        // The entry's first 16 bytes are always readable (kInlineTokenBytes >= 16).
        return entry.tag == (h | 1) && entry.token_length == length &&
               padded_short_term_words(entry.bytes, length) == words;
    }
    static Entry& use(Entry& entry, Entry& other) {
        if (!entry.recent) {
            entry.recent = true;
            other.recent = false;
        }
        return entry;
    }
    Entry& refill(Entry* set, std::string_view token, uint64_t h);
    // `kept`: the token's bytes are in entry.bytes (the overflow entry's are not).
    void fill(Entry& entry, std::string_view token, uint64_t h, bool kept);

    StopwordSet stopwords_;
    PorterStemmer stemmer_;
    // slots + 1 entries, sets of two from 0: the last one holds the token too long to keep.
    std::vector<Entry> entries_;
    std::vector<std::string> long_stems_;  // per entry, for stems that do not fit in it
    size_t set_mask_;  // of the first slot of a set: the slot count - 2
};

}  // namespace invidx
