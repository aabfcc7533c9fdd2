// Reads query.post, the query-ready layout (docs/FORMAT.md, "query.post";
// written by store/query_postings_writer.hpp). A term's list is a table of
// blocks of 128 postings: each block's last docid and largest BM25
// term-frequency part can be looked at without decoding anything, and its
// docids and tfs are decoded separately, block by block, by the index's codec.
// Every field is checked when a list is opened, every block when it is
// decoded, and the bytes of each against their CRC-32s (checksums.bin) when
// first read: damage is a FormatError naming query.post, the term and the block.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "store/run_list.hpp"
#include "store/bm25.hpp"
#include "store/codecs/codec.hpp"
#include "store/index_reader.hpp"

namespace invidx {

struct QueryBlock {
    uint32_t last_docid = 0;
    uint32_t next_docid = 0;   // previous block's last docid + 1 (0 for the first): where the gaps start
    uint32_t postings = 0;     // 128, the last block of a list 1..128
    double max_tf_part = 0.0;  // largest tf·(k1+1)/(tf + norm) of the block's postings
    uint32_t max_impact = 0;   // version 2: the largest quantized impact of the block (>= 1)
    std::string_view docid_bytes;
    std::string_view tf_bytes;
    std::string_view impact_bytes;  // version 2
};

class QueryPostings;

class QueryList {
public:
    std::span<const QueryBlock> blocks() const { return blocks_; }
    uint64_t df() const { return df_; }
    double max_tf_part() const { return max_tf_part_; }  // over the whole list
    bool has_impacts() const;
    uint32_t max_impact() const { return max_impact_; }  // over the whole list; 0 without impacts

    // Block k's docids (increasing, checked against its last docid) or tfs;
    // out.size() must be blocks()[k].postings.
    void decode_docids(size_t k, std::span<uint32_t> out) const;
    void decode_tfs(size_t k, std::span<uint32_t> out) const;
    // Block k's quantized impacts (an index with impacts only), each checked
    // to lie in [1, the block's max_impact].
    void decode_impacts(size_t k, std::span<uint32_t> out) const;
    // The whole list, checked against the dictionary's df and cf.
    run_list::DecodedList decode() const;

private:
    friend class QueryPostings;
    [[noreturn]] void fail(size_t block, const std::string& problem) const;

    const QueryPostings* owner_ = nullptr;
    std::string term_;
    uint64_t df_ = 0;
    uint64_t cf_ = 0;
    double max_tf_part_ = 0.0;
    uint32_t max_impact_ = 0;
    uint32_t max_stored_tf_ = 0;  // cf − df: no stored tf − 1 is larger
    std::vector<QueryBlock> blocks_;
};

class QueryPostings {
public:
    // True when the index has a query.post (invidx merge --layout query).
    static bool present(const IndexReader& index);
    // Checks the header and footer; a missing or damaged file is a FormatError.
    explicit QueryPostings(const IndexReader& index);

    const codecs::Codec& codec() const { return *codec_; }
    // The BM25 parameters the block maxima were computed with.
    const Bm25Parameters& parameters() const { return parameters_; }
    // Version 2 (`invidx weight`): every block holds quantized BM25 impacts
    // (store/impacts.hpp) of impact_bits() bits, scaled by max_weight().
    bool has_impacts() const { return impact_bits_ != 0; }
    unsigned impact_bits() const { return impact_bits_; }
    // Quantized BM25: the largest BM25 weight; impacts that are tfs: the largest tf.
    double max_weight() const { return max_weight_; }
    // Version 3 with impact_source 1 (`invidx weight --impacts tf`,
    // store/tf_impacts.hpp): every impact is its posting's tf, unquantized.
    bool impacts_are_tfs() const { return impacts_are_tfs_; }
    const std::string& file_name() const { return name_; }
    const VerifiedFile& file() const { return *file_; }

    QueryList list(uint64_t term) const;

    // The file as it lies (without its CRC-32), for readers that parse the
    // lists themselves (GPU weighting: query/layout_weights.hpp): lists from
    // lists_start to table_offset, then (term_count + 1) u64 list offsets;
    // block entries of entry_bytes (20, or 28 with impacts).
    struct Raw {
        std::string_view bytes;
        uint64_t lists_start = 0;
        uint64_t table_offset = 0;
        uint64_t entry_bytes = 0;
    };
    Raw raw() const { return {bytes_, lists_start_, table_offset_, entry_bytes_}; }

private:
    const IndexReader& index_;
    std::string name_;       // "<dir>/query.post", for errors
    const VerifiedFile* file_ = nullptr;
    std::string_view bytes_;  // without the trailing CRC-32; not verified: through file_->check
    const codecs::Codec* codec_ = nullptr;
    Bm25Parameters parameters_;
    unsigned impact_bits_ = 0;  // 0: version 1, no impacts
    bool impacts_are_tfs_ = false;
    double max_weight_ = 0.0;
    uint64_t entry_bytes_ = 0;  // of a block entry
    uint64_t lists_start_ = 0;
    uint64_t table_offset_ = 0;
};

}  // namespace invidx
