#include "analysis/stopwords.hpp"

#include <algorithm>

namespace invidx {

uint64_t StopwordSet::hash(std::string_view word) {
    uint64_t h = 0xcbf29ce484222325ull;  // 64-bit FNV-1a: words are short
    for (unsigned char c : word) h = (h ^ c) * 0x100000001b3ull;
    return h;
}

StopwordSet::StopwordSet(const std::vector<std::string>& words) {
    for (const auto& word : words) {
        if (std::find(words_.begin(), words_.end(), word) == words_.end()) words_.push_back(word);
    }
    size_t capacity = 16;
    while (capacity < 2 * words_.size()) capacity *= 2;
    slots_.assign(capacity, 0);
    mask_ = capacity - 1;
    for (uint32_t i = 0; i < words_.size(); ++i) {
        longest_ = std::max(longest_, words_[i].size());
        uint64_t slot = hash(words_[i]) & mask_;
        while (slots_[slot] != 0) slot = (slot + 1) & mask_;
        slots_[slot] = i + 1;
    }
}

bool StopwordSet::contains(std::string_view word) const {
    if (word.size() > longest_ || words_.empty()) return false;
    for (uint64_t slot = hash(word) & mask_; slots_[slot] != 0; slot = (slot + 1) & mask_) {
        if (words_[slots_[slot] - 1] == word) return true;
    }
    return false;
}

}  // namespace invidx
