// Dictionaries that stress a trie and a hash table: every byte value in
// terms (non-ASCII UTF-8, 0x00, 0xff), 255-byte terms, long shared prefixes,
// terms that are prefixes of others, the empty term; and the strings to look
// up that are not terms (one byte more, one less, one changed, random).
#pragma once

#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace invidx::testing {

inline std::set<std::string> generated_dictionary(uint32_t seed, size_t random_terms, bool with_empty_term) {
    std::mt19937 random(seed);
    std::set<std::string> terms;
    if (with_empty_term) terms.insert("");
    // Prefix chains: "a", "ab", "abc", ... and one 255 bytes long.
    std::string chain;
    for (int i = 0; i < 255; ++i) {
        chain.push_back(static_cast<char>('a' + i % 26));
        if (i % 7 == 0 || i == 254) terms.insert(chain);
    }
    terms.insert(std::string(255, 'z'));
    terms.insert(std::string(255, '\xff'));
    terms.insert(std::string(254, '\xff'));
    terms.insert(std::string(1, '\0'));
    terms.insert(std::string("a\0b", 3));
    // Every single byte, and UTF-8 words sharing their first bytes.
    for (int byte = 0; byte < 256; byte += 3) terms.insert(std::string(1, static_cast<char>(byte)));
    for (const char* word : {"\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9s", "\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5",
                             "\xd0\xbc\xd0\xb8\xd1\x80", "caf\xc3\xa9", "cafe", "caf"})
        terms.insert(word);
    // Random terms over a small and over the full byte alphabet, many
    // sharing long prefixes with earlier ones.
    std::vector<std::string> made(terms.begin(), terms.end());
    std::uniform_int_distribution<int> length(1, 40), byte(0, 255), letter('a', 'f');
    while (terms.size() < random_terms) {
        std::string term;
        if (random() % 3 == 0 && !made.empty()) {
            const std::string& base = made[random() % made.size()];
            term = base.substr(0, random() % (base.size() + 1));
        }
        const bool full_alphabet = random() % 4 == 0;
        for (int i = length(random); i > 0 && term.size() < 255; --i)
            term.push_back(static_cast<char>(full_alphabet ? byte(random) : letter(random)));
        if (terms.insert(term).second) made.push_back(term);
    }
    return terms;
}

// Strings near the terms that are not terms, and random ones.
inline std::vector<std::string> missing_strings(const std::set<std::string>& terms, uint32_t seed) {
    std::mt19937 random(seed);
    std::vector<std::string> candidates;
    for (const auto& term : terms) {
        candidates.push_back(term + "q");
        candidates.push_back(term + '\0');
        if (!term.empty()) {
            candidates.push_back(term.substr(0, term.size() - 1));
            std::string changed = term;
            changed[random() % changed.size()] ^= static_cast<char>(1 + random() % 255);
            candidates.push_back(changed);
        }
    }
    candidates.push_back("");
    candidates.push_back(std::string(256, 'z'));
    candidates.push_back(std::string(1000, 'a'));
    std::vector<std::string> missing;
    for (auto& candidate : candidates)
        if (terms.count(candidate) == 0) missing.push_back(std::move(candidate));
    return missing;
}

inline std::vector<std::string_view> views_of(const std::set<std::string>& terms) {
    return std::vector<std::string_view>(terms.begin(), terms.end());
}

}  // namespace invidx::testing
