// The stop word test of SPEC §4.1, asked once per token.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace invidx {

// A fixed set of words with an allocation-free lookup: open addressing over
// a power-of-two table, sized so that at most half the slots are used.
class StopwordSet {
public:
    StopwordSet() = default;
    explicit StopwordSet(const std::vector<std::string>& words);

    bool contains(std::string_view word) const;
    bool empty() const { return words_.empty(); }
    size_t size() const { return words_.size(); }

private:
    static uint64_t hash(std::string_view word);

    std::vector<std::string> words_;    // distinct words
    std::vector<uint32_t> slots_;       // word index + 1; 0 = empty
    uint64_t mask_ = 0;
    size_t longest_ = 0;                // longer tokens are rejected at once
};

}  // namespace invidx
