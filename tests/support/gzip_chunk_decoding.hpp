// The two ends the split-gzip tests compare: a file decoded in order by one
// GzipStream, and a file's chunks, each decoded on its own, put back in a
// shuffled order by a GzipReassembler (as the decompress node's decoders
// finish them in any order).
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "nodes/decompress/gzip_stream.hpp"
#include "nodes/decompress/split_gzip.hpp"
#include "tests/support/text_blocks.hpp"

namespace invidx::testing {

// The text blocks of decoding `file` (named x.warc.gz) in order.
inline std::vector<TextBlock> in_order(const std::string& file, size_t text_block_bytes) {
    std::vector<TextBlock> blocks;
    GzipStream stream(input_file("x.warc.gz"), text_block_bytes);
    stream.feed(file, true, [&](TextBlock&& text) { blocks.push_back(std::move(text)); });
    return blocks;
}

// The text blocks the reassembler sends on for `chunks` (decoded or not)
// pushed in an order shuffled by `seed`; `files_in_order` says how many
// files fell back to decoding in order.
inline std::vector<TextBlock> reassemble_shuffled(std::vector<GzipChunkPtr> chunks, size_t text_block_bytes,
                                                  uint32_t seed, uint64_t& files_in_order) {
    const InputFile input = input_file("x.warc.gz");
    std::mt19937 random(seed);
    std::shuffle(chunks.begin(), chunks.end(), random);
    std::vector<TextBlock> text;
    GzipReassembler reassembler(text_block_bytes, nullptr);
    for (auto& chunk : chunks)
        reassembler.push(chunk, input, [&](TextBlock&& block) { text.push_back(std::move(block)); });
    files_in_order = reassembler.files_in_order();
    return text;
}

}  // namespace invidx::testing
