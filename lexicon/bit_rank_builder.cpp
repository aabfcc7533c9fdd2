#include "lexicon/bit_rank_builder.hpp"

#include <cstdint>
#include <limits>

#include "invidx/error.hpp"

namespace invidx::lexicon {

BitRankSections append_bit_rank(FlatBuffer& buffer, const std::vector<bool>& bits, SelectSupport select) {
    if (bits.size() >= std::numeric_limits<uint32_t>::max())
        throw Error("lexicon: a bit vector of " + std::to_string(bits.size()) + " bits is over the 2^32 - 1 that its u32 ranks hold");
    const auto size = static_cast<uint32_t>(bits.size());
    // At least one word, so that a view over an empty vector reads valid memory.
    std::vector<uint64_t> words(size / 64 + 1, 0);
    for (uint32_t i = 0; i < size; ++i)
        if (bits[i]) words[i / 64] |= uint64_t{1} << (i % 64);
    const uint32_t blocks = (size + kBitsPerRankBlock - 1) / kBitsPerRankBlock;
    std::vector<uint32_t> superblock_ranks(blocks / kBlocksPerSuperblock + 1, 0);
    std::vector<uint16_t> block_ranks(blocks + 1, 0);
    std::vector<uint32_t> select_samples;
    uint32_t ones = 0;
    for (uint32_t block = 0; block <= blocks; ++block) {
        if (block % kBlocksPerSuperblock == 0) superblock_ranks[block / kBlocksPerSuperblock] = ones;
        block_ranks[block] = static_cast<uint16_t>(ones - superblock_ranks[block / kBlocksPerSuperblock]);
        if (block == blocks) break;
        for (uint32_t w = block * kWordsPerRankBlock; w < (block + 1) * kWordsPerRankBlock && w < words.size(); ++w) {
            const uint32_t count = popcount64(words[w]);
            // A sample for each multiple of kOnesPerSelectSample reached inside this word.
            while (select_samples.size() * kOnesPerSelectSample < ones + count) select_samples.push_back(block);
            ones += count;
        }
    }
    if (select == SelectSupport::none) select_samples.clear();
    if (select_samples.empty()) select_samples.push_back(0);  // a valid address either way
    BitRankSections sections;
    sections.words_offset = buffer.append(words);
    sections.superblock_ranks_offset = buffer.append(superblock_ranks);
    sections.block_ranks_offset = buffer.append(block_ranks);
    sections.select_samples_offset = buffer.append(select_samples);
    sections.size = size;
    sections.ones = ones;
    return sections;
}

}  // namespace invidx::lexicon
