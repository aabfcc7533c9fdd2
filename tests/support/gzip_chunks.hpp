// Gzip files cut into read blocks, for the tests of split_gzip and of the
// GPU chunk batches: word text, a false member header to plant in stored
// members, and the read node's blocks of a file.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "invidx/messages.hpp"

namespace invidx::testing {

// A header as gzip writes it: method 8, no flags, mtime 0, XFL 0, OS 3 (Unix).
inline const std::string kFakeHeader("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10);

// At least `bytes` of words from a small web-like vocabulary.
inline std::string words(std::mt19937& random, size_t bytes) {
    static const char* const vocabulary[] = {"index", "posting", "term", "the", "gzip", "member", "chunk",
                                             "web", "crawl", "document", "<p>", "</div>", "query"};
    std::string text;
    while (text.size() < bytes) {
        text += vocabulary[random() % std::size(vocabulary)];
        text += ' ';
    }
    return text;
}

// `file` as read blocks of `block_bytes` (the last shorter), file ordinal 3.
inline std::vector<std::shared_ptr<const RawBlock>> raw_blocks(const std::string& file, size_t block_bytes) {
    std::vector<std::shared_ptr<const RawBlock>> blocks;
    for (size_t at = 0; at < file.size(); at += block_bytes) {
        auto block = std::make_shared<RawBlock>();
        block->sequence = blocks.size();
        block->file_ordinal = 3;
        block->file_offset = at;
        const size_t size = std::min(block_bytes, file.size() - at);
        block->bytes.assign(file.begin() + static_cast<std::ptrdiff_t>(at),
                            file.begin() + static_cast<std::ptrdiff_t>(at + size));
        block->first = at == 0;
        block->last = at + size == file.size();
        blocks.push_back(std::move(block));
    }
    return blocks;
}

}  // namespace invidx::testing
