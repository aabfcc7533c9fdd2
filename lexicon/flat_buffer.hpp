// The one array a lexicon structure lives in: every section appended as
// whole u64 words, its place kept as a word offset, so that copying the
// buffer (to a GPU, to a file) moves the whole structure and a view over the
// copy needs only its base pointer. Host only: builders fill it.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace invidx::lexicon {

class FlatBuffer {
public:
    // Appends the values, padded to a whole word with zeros; returns their word offset.
    template <typename T>
    uint64_t append(std::span<const T> values) {
        const uint64_t offset = words_.size();
        const size_t bytes = values.size_bytes();
        words_.resize(words_.size() + (bytes + 7) / 8, 0);
        if (bytes > 0) std::memcpy(words_.data() + offset, values.data(), bytes);
        return offset;
    }
    template <typename T>
    uint64_t append(const std::vector<T>& values) {
        return append(std::span<const T>(values));
    }

    const std::vector<uint64_t>& words() const { return words_; }
    uint64_t bytes() const { return words_.size() * sizeof(uint64_t); }

private:
    std::vector<uint64_t> words_;
};

}  // namespace invidx::lexicon
