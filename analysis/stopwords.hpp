// The stop word test of CONTENT.md §5, asked once per token.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/stopword_table.hpp"

namespace invidx {

// A fixed set of words with an allocation-free lookup. It owns the flat
// arrays of a StopwordTable (stopword_table.hpp), whose lookup it uses, so a
// device copy of the arrays answers exactly as the host does.
class StopwordSet {
public:
    StopwordSet() = default;
    explicit StopwordSet(const std::vector<std::string>& words);

    bool contains(std::string_view word) const {
        return word.size() <= longest_ &&
               table().contains(reinterpret_cast<const unsigned char*>(word.data()), static_cast<uint32_t>(word.size()));
    }
    bool empty() const { return size() == 0; }
    size_t size() const { return word_offsets_.empty() ? 0 : word_offsets_.size() - 1; }

    // The lookup over this set's arrays, valid while the set lives unchanged.
    StopwordTable table() const {
        StopwordTable table;
        if (slots_.empty()) return table;
        table.bytes = reinterpret_cast<const unsigned char*>(bytes_.data());
        table.word_offsets = word_offsets_.data();
        table.slots = slots_.data();
        table.mask = slots_.size() - 1;
        table.words = static_cast<uint32_t>(size());
        table.longest = static_cast<uint32_t>(longest_);
        return table;
    }

    // The arrays themselves, for copying to a device: words back to back,
    // word_offsets (size() + 1 entries), slots (a power of two).
    const std::string& bytes() const { return bytes_; }
    const std::vector<uint32_t>& word_offsets() const { return word_offsets_; }
    const std::vector<uint32_t>& slots() const { return slots_; }

private:
    std::string bytes_;
    std::vector<uint32_t> word_offsets_;
    std::vector<uint32_t> slots_;
    size_t longest_ = 0;
};

}  // namespace invidx
