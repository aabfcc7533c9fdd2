#include "store/query_postings.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "invidx/error.hpp"
#include "store/binary_io.hpp"
#include "store/codecs/docid_gaps.hpp"
#include "store/codecs/registry.hpp"
#include "store/impacts.hpp"
#include "store/index_layout.hpp"

namespace invidx {

bool QueryPostings::present(const IndexReader& index) {
    return index.index_file(layout::kQueryPostingsFile) != nullptr;
}

QueryPostings::QueryPostings(const IndexReader& index)
    : index_(index), name_(index.display(layout::kQueryPostingsFile)) {
    file_ = index.index_file(layout::kQueryPostingsFile);
    if (file_ == nullptr) {
        throw FormatError(index.display(layout::kManifestFile),
                          "key '/files' does not list query.post: the index has no query layout "
                          "(invidx merge --layout query makes one)");
    }
    const auto file = file_->unchecked_bytes();
    // Verified whole at open (an index without block checksums): its own CRC too.
    if (!file_->lazy()) check_trailing_crc(name_, file);
    if (file.size() < 4) throw FormatError(name_, "field 'crc32': file too short");
    bytes_ = file.substr(0, file.size() - 4);
    BinaryReader in(name_, bytes_, 0, file_);
    // Version 1, version 2 with impacts or version 3 with impacts and their
    // source; the version field decides which.
    const uint32_t version = bytes_.size() >= 12 ? load_u32(bytes_.data() + 8) : layout::kFileVersion;
    const bool with_impacts =
        version == layout::kQueryPostingsImpactVersion || version == layout::kQueryPostingsSourcedImpactVersion;
    in.expect_header(layout::kQueryPostingsMagic, with_impacts ? version : layout::kFileVersion);
    if (in.u32("block_postings") != layout::kQueryBlockPostings) {
        in.fail("block_postings", "must be " + std::to_string(layout::kQueryBlockPostings));
    }
    parameters_.k1 = std::bit_cast<double>(in.u64("k1"));
    parameters_.b = std::bit_cast<double>(in.u64("b"));
    if (!std::isfinite(parameters_.k1) || parameters_.k1 < 0.0 || !std::isfinite(parameters_.b) || parameters_.b < 0.0 ||
        parameters_.b > 1.0) {
        in.fail("k1", "BM25 parameters out of range");
    }
    const std::string codec_name(in.string("codec"));
    try {
        codec_ = &codecs::find_codec(codec_name);
    } catch (const Error& error) {
        in.fail("codec", error.message());
    }
    entry_bytes_ = layout::kQueryBlockEntryBytes;
    if (with_impacts) {
        const uint32_t bits = in.u32("impact_bits");
        if (bits < kMinImpactBits || bits > kMaxImpactBits) {
            in.fail("impact_bits", std::to_string(bits) + " is not " + std::to_string(kMinImpactBits) + " to " +
                                       std::to_string(kMaxImpactBits));
        }
        impact_bits_ = bits;
        max_weight_ = std::bit_cast<double>(in.u64("max_weight"));
        if (!std::isfinite(max_weight_) || max_weight_ <= 0.0) in.fail("max_weight", "not a positive weight");
        if (version == layout::kQueryPostingsSourcedImpactVersion) {
            const uint32_t source = in.u32("impact_source");
            if (source != layout::kImpactSourceQuantizedBm25 && source != layout::kImpactSourceTf) {
                in.fail("impact_source", std::to_string(source) + " is not 0 (quantized BM25) or 1 (tf)");
            }
            impacts_are_tfs_ = source == layout::kImpactSourceTf;
            // Impacts that are tfs: max_weight is the largest, an impact itself.
            if (impacts_are_tfs_ && (max_weight_ != std::floor(max_weight_) || max_weight_ < 1.0 ||
                                     max_weight_ > static_cast<double>((uint32_t{1} << bits) - 1))) {
                in.fail("max_weight", "impacts that are tfs need a max_weight that is a tf of " + std::to_string(bits) +
                                             " bits, not " + std::to_string(max_weight_));
            }
        }
        entry_bytes_ = layout::kQueryImpactBlockEntryBytes;
    }
    lists_start_ = in.position();

    if (in.size() < lists_start_ + layout::kQueryFooterBytes - 4) in.fail("term_count", "file too short for its footer");
    in.seek(in.size() - 16, "term_count");
    const uint64_t terms = in.u64("term_count");
    table_offset_ = in.u64("table_offset");
    if (terms != index.term_count()) {
        in.fail("term_count", std::to_string(terms) + " terms but the dictionary has " + std::to_string(index.term_count()));
    }
    if (table_offset_ < lists_start_ || table_offset_ > in.size() - 16 ||
        (in.size() - 16 - table_offset_) % 8 != 0 || (in.size() - 16 - table_offset_) / 8 != terms + 1) {
        in.fail("table_offset", "the list offsets table does not fit between the lists and the footer");
    }
}

QueryList QueryPostings::list(uint64_t term) const {
    ensure(term < index_.term_count(), "term number " + std::to_string(term) + " out of range");
    const auto info = index_.term(term);
    QueryList list;
    list.owner_ = this;
    list.term_ = std::string(info.term);
    list.df_ = info.df;
    list.cf_ = info.cf;

    // The error context is built only when a check fails: a query opens a
    // list per term, and the checks themselves cost a few compares per block.
    const auto where = [&] { return "list of term '" + list.term_ + "'"; };
    const uint64_t table = table_offset_ + 8 * term;  // inside the file: the footer was checked
    // The bytes read here are verified first, naming the term when damaged;
    // each block's data is verified when it is decoded.
    const auto verify = [&](uint64_t offset, uint64_t length) {
        try {
            file_->check(bytes_.substr(offset, length));
        } catch (const FormatError& error) {
            throw FormatError(name_, where() + ": " + error.message());
        }
    };
    verify(table, 16);
    const uint64_t begin = load_u64(bytes_.data() + table);
    const uint64_t end = load_u64(bytes_.data() + table + 8);
    if (begin < lists_start_ || begin > end || end > table_offset_) {
        BinaryReader(name_, bytes_, table + 16).fail("list_offsets", where() + " lies outside the lists");
    }
    // Every tf is at least 1, so no tf exceeds cf − (df − 1): decode_tfs
    // checks each against it, the whole sum being check --full's (decode).
    if (info.cf < info.df) {
        throw FormatError(index_.display(layout::kDictionaryFile),
                          "term '" + list.term_ + "': cf " + std::to_string(info.cf) + " is below its df " + std::to_string(info.df));
    }
    list.max_stored_tf_ = static_cast<uint32_t>(std::min<uint64_t>(info.cf - info.df, uint64_t{UINT32_MAX} - 1));
    const uint64_t block_count = (info.df + layout::kQueryBlockPostings - 1) / layout::kQueryBlockPostings;
    if (block_count > (end - begin) / entry_bytes_) {
        BinaryReader(name_, bytes_, table + 16)
            .fail("list_offsets", where() + ": " + std::to_string(block_count) + " block entries do not fit in " +
                                      std::to_string(end - begin) + " bytes");
    }
    // Fields of block k's entry, read in place (the entries fit: checked above).
    const auto fail_entry = [&](uint64_t k, uint64_t field_offset, std::string_view field, const std::string& problem) {
        BinaryReader(name_, bytes_.substr(0, end), begin + k * entry_bytes_ + field_offset)
            .fail(field, where() + ", block " + std::to_string(k) + ": " + problem);
    };
    uint64_t data = begin + block_count * entry_bytes_;
    verify(begin, block_count * entry_bytes_);
    list.blocks_.resize(block_count);
    const double max_tf_part_bound = (parameters_.k1 + 1.0) * (1.0 + 1e-9);
    uint32_t next_docid = 0;
    for (uint64_t k = 0; k < block_count; ++k) {
        const char* entry = bytes_.data() + begin + k * entry_bytes_;
        QueryBlock& block = list.blocks_[k];
        block.last_docid = load_u32(entry);
        const uint32_t docid_bytes = load_u32(entry + 4);
        const uint32_t tf_bytes = load_u32(entry + 8);
        block.max_tf_part = std::bit_cast<double>(load_u64(entry + 12));
        block.next_docid = next_docid;
        block.postings = static_cast<uint32_t>(
            k + 1 < block_count ? layout::kQueryBlockPostings : info.df - k * layout::kQueryBlockPostings);
        if (block.last_docid >= index_.num_documents() || block.last_docid < uint64_t{next_docid} + block.postings - 1) {
            fail_entry(k, 4, "last_docid", "docid " + std::to_string(block.last_docid) + " cannot end this block");
        }
        // tf·(k1+1)/(tf + norm) with tf >= 1 lies in (0, k1+1] (a little slack for rounding).
        if (!(block.max_tf_part > 0.0 && block.max_tf_part <= max_tf_part_bound)) {
            fail_entry(k, 20, "max_tf_part", std::to_string(block.max_tf_part) + " is not a BM25 tf part (0 to k1 + 1)");
        }
        uint32_t impact_bytes = 0;
        if (impact_bits_ != 0) {
            impact_bytes = load_u32(entry + 20);
            block.max_impact = load_u32(entry + 24);
            if (block.max_impact < 1 || block.max_impact > (uint32_t{1} << impact_bits_) - 1) {
                fail_entry(k, 24, "max_impact", std::to_string(block.max_impact) + " is not an impact of " +
                                                    std::to_string(impact_bits_) + " bits");
            }
        }
        if (uint64_t{docid_bytes} + tf_bytes + impact_bytes > end - data) {
            fail_entry(k, 8, "docid_bytes", "the block's bytes run past the list");
        }
        block.docid_bytes = bytes_.substr(data, docid_bytes);
        block.tf_bytes = bytes_.substr(data + docid_bytes, tf_bytes);
        block.impact_bytes = bytes_.substr(data + docid_bytes + tf_bytes, impact_bytes);
        data += uint64_t{docid_bytes} + tf_bytes + impact_bytes;
        list.max_tf_part_ = std::max(list.max_tf_part_, block.max_tf_part);
        list.max_impact_ = std::max(list.max_impact_, block.max_impact);
        next_docid = block.last_docid + 1;
    }
    if (data != end) {
        BinaryReader(name_, bytes_.substr(0, end), data).fail("docid_bytes", where() + ": the blocks' bytes do not add up to the list's");
    }
    return list;
}

void QueryList::fail(size_t block, const std::string& problem) const {
    throw FormatError(owner_->file_name(), "list of term '" + term_ + "', block " + std::to_string(block) + ": " + problem);
}

void QueryList::decode_docids(size_t k, std::span<uint32_t> out) const {
    const QueryBlock& block = blocks_[k];
    ensure(out.size() == block.postings, "decode_docids: the buffer must hold the block's postings");
    try {
        owner_->file().check(block.docid_bytes);
        owner_->codec().decode(block.docid_bytes, out);
    } catch (const FormatError& error) {
        fail(k, "docids: " + error.message());
    }
    // The gaps must lead exactly to the block's last docid, without wrapping.
    uint64_t span = out.size();
    for (const uint32_t value : out) span += value;
    if (span != uint64_t{block.last_docid} - block.next_docid + 1) fail(k, "docids do not end at the block's last docid");
    codecs::gaps_to_docids(out, block.next_docid);
}

void QueryList::decode_tfs(size_t k, std::span<uint32_t> out) const {
    const QueryBlock& block = blocks_[k];
    ensure(out.size() == block.postings, "decode_tfs: the buffer must hold the block's postings");
    try {
        owner_->file().check(block.tf_bytes);
        owner_->codec().decode(block.tf_bytes, out);
    } catch (const FormatError& error) {
        fail(k, "tfs: " + error.message());
    }
    // Stored as tf − 1: each in [1, cf − df + 1], so none wraps to 0 and none
    // is more than the term's cf allows. Branch-free (vectorized), like impacts.
    uint32_t over = 0;
    for (uint32_t& tf : out) {
        over |= static_cast<uint32_t>(tf > max_stored_tf_);
        tf += 1;
    }
    if (over != 0) {
        fail(k, "tfs: a tf exceeds " + std::to_string(uint64_t{max_stored_tf_} + 1) +
                    ", the most the term's cf and df allow (cf - df + 1), or wraps to 0");
    }
}

bool QueryList::has_impacts() const { return owner_->has_impacts(); }

void QueryList::decode_impacts(size_t k, std::span<uint32_t> out) const {
    // The message is built only on failure: this runs for every block an impact query scores.
    if (!owner_->has_impacts()) throw Error("decode_impacts: " + owner_->file_name() + " has no impacts");
    const QueryBlock& block = blocks_[k];
    ensure(out.size() == block.postings, "decode_impacts: the buffer must hold the block's postings");
    try {
        owner_->file().check(block.impact_bytes);
        owner_->codec().decode(block.impact_bytes, out);
    } catch (const FormatError& error) {
        fail(k, "impacts: " + error.message());
    }
    // Stored as impact − 1; a block maximum below an impact would let pruning
    // drop a document. One branch-free loop (vectorized), the check after it.
    uint32_t over = 0;
    for (uint32_t& impact : out) {
        over |= static_cast<uint32_t>(impact >= block.max_impact);
        impact += 1;
    }
    if (over != 0) fail(k, "an impact exceeds the block's max_impact " + std::to_string(block.max_impact));
}

run_list::DecodedList QueryList::decode() const {
    run_list::DecodedList out;
    out.docids.resize(df_);
    out.tfs.resize(df_);
    size_t start = 0;
    for (size_t k = 0; k < blocks_.size(); ++k) {
        const size_t n = blocks_[k].postings;
        decode_docids(k, std::span(out.docids).subspan(start, n));
        decode_tfs(k, std::span(out.tfs).subspan(start, n));
        start += n;
    }
    uint64_t cf = 0;
    bool zero_tf = false;  // a stored tf − 1 of 2^32 − 1
    for (const uint32_t tf : out.tfs) {
        zero_tf |= tf == 0;
        cf += tf;
    }
    if (has_impacts()) {
        // Every block's impacts, within its maximum (the bound pruning relies on).
        std::vector<uint32_t> impacts(layout::kQueryBlockPostings);
        for (size_t k = 0; k < blocks_.size(); ++k) decode_impacts(k, std::span(impacts.data(), blocks_[k].postings));
    }
    if (zero_tf || cf != cf_) {
        throw FormatError(owner_->file_name(), "list of term '" + term_ + "': tfs add up to " + std::to_string(cf) +
                                                   " but the dictionary's cf is " + std::to_string(cf_));
    }
    return out;
}

}  // namespace invidx
