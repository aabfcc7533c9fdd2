#include "analysis/stopwords.hpp"

#include <algorithm>
#include <limits>
#include <string_view>
#include <unordered_set>

#include "invidx/error.hpp"

namespace invidx {

StopwordSet::StopwordSet(const std::vector<std::string>& words) {
    // First occurrences in list order, found with a hash set: a list of
    // 100,000 words takes milliseconds, not the seconds a scan per word took.
    std::vector<std::string_view> distinct;
    std::unordered_set<std::string_view> seen;
    seen.reserve(words.size());
    for (const auto& word : words) {
        if (seen.insert(word).second) distinct.push_back(word);
    }
    if (distinct.empty()) return;
    word_offsets_.push_back(0);
    for (const auto& word : distinct) {
        bytes_ += word;
        ensure(bytes_.size() <= std::numeric_limits<uint32_t>::max(), "stop word list too large");
        word_offsets_.push_back(static_cast<uint32_t>(bytes_.size()));
        longest_ = std::max(longest_, word.size());
    }
    size_t capacity = 16;
    while (capacity < 2 * distinct.size()) capacity *= 2;
    slots_.assign(capacity, 0);
    const uint64_t mask = capacity - 1;
    for (uint32_t i = 0; i < distinct.size(); ++i) {
        const auto* word = reinterpret_cast<const unsigned char*>(distinct[i].data());
        uint64_t slot = stopword_hash(word, static_cast<uint32_t>(distinct[i].size())) & mask;
        while (slots_[slot] != 0) slot = (slot + 1) & mask;
        slots_[slot] = i + 1;
    }
}

}  // namespace invidx
