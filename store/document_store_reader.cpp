#include "store/document_store_reader.hpp"

#include "invidx/error.hpp"
#include "store/binary_io.hpp"
#include "store/block_compression.hpp"
#include "store/crc32.hpp"
#include "store/document_store_layout.hpp"
#include "store/verified_file.hpp"

namespace invidx {

DocumentStoreReader::DocumentStoreReader(const IndexReader& index)
    : file_(index.index_file(layout::kDocumentTextFile)), name_(index.display(layout::kDocumentTextFile)) {
    if (!file_) return;
    const uint64_t size = file_->size();
    const uint64_t minimum = layout::kDocumentTextHeaderBytes + layout::kDocumentTextFooterBytes;
    if (size < minimum) throw FormatError(name_, "is " + std::to_string(size) + " bytes, shorter than its header and footer");
    BinaryReader header(name_, file_->unchecked_bytes(), 0, file_);
    header.expect_header(layout::kDocumentTextMagic, layout::kDocumentTextVersion);
    BinaryReader footer(name_, file_->unchecked_bytes(), size - layout::kDocumentTextFooterBytes, file_);
    documents_ = footer.u64("documents");
    blocks_ = footer.u64("blocks");
    table_offset_ = footer.u64("table offset");
    const uint64_t table_end = size - layout::kDocumentTextFooterBytes;
    if (table_offset_ < layout::kDocumentTextHeaderBytes || table_offset_ > table_end ||
        (table_end - table_offset_) / layout::kDocumentTextBlockEntryBytes != blocks_ ||
        (table_end - table_offset_) % layout::kDocumentTextBlockEntryBytes != 0) {
        throw FormatError(name_, "block table at byte " + std::to_string(table_offset_) + " does not hold " +
                                     std::to_string(blocks_) + " blocks before the footer");
    }
    if (documents_ != index.num_documents()) {
        throw FormatError(name_, "holds " + std::to_string(documents_) + " documents, the index " +
                                     std::to_string(index.num_documents()));
    }
}

void DocumentStoreReader::fail(uint64_t block, const std::string& problem) const {
    throw FormatError(name_, "block " + std::to_string(block) + ": " + problem);
}

DocumentStoreReader::BlockEntry DocumentStoreReader::block_entry(uint64_t block) const {
    BinaryReader in(name_, file_->unchecked_bytes(), table_offset_ + block * layout::kDocumentTextBlockEntryBytes, file_);
    BlockEntry entry;
    entry.first_docid = in.u64("block first docid");
    entry.offset = in.u64("block offset");
    entry.compressed_bytes = in.u64("block compressed bytes");
    entry.uncompressed_bytes = in.u64("block uncompressed bytes");
    entry.crc32 = in.u32("block crc32");
    if (entry.offset < layout::kDocumentTextHeaderBytes || entry.offset > table_offset_ ||
        entry.compressed_bytes > table_offset_ - entry.offset) {
        fail(block, "its bytes [" + std::to_string(entry.offset) + ", +" + std::to_string(entry.compressed_bytes) +
                        ") lie outside the blocks' area");
    }
    if (entry.uncompressed_bytes > (uint64_t{4} << 30) + layout::kDocumentTextBlockBytes) {
        fail(block, "claims " + std::to_string(entry.uncompressed_bytes) + " bytes of records");
    }
    return entry;
}

// The last block whose first docid is at most `docid` (first docids increase).
uint64_t DocumentStoreReader::block_of(uint64_t docid) const {
    uint64_t low = 0, high = blocks_;  // answer in [low, high)
    while (high - low > 1) {
        const uint64_t middle = low + (high - low) / 2;
        if (block_entry(middle).first_docid <= docid) {
            low = middle;
        } else {
            high = middle;
        }
    }
    return low;
}

std::string DocumentStoreReader::decode(uint64_t block, const BlockEntry& entry) const {
    const std::string_view compressed = file_->range(entry.offset, entry.compressed_bytes);
    std::string records;
    if (!decompress_block(compressed, entry.uncompressed_bytes, records)) {
        fail(block, "is not a zlib stream of " + std::to_string(entry.uncompressed_bytes) + " bytes; the file is damaged");
    }
    if (crc32(records) != entry.crc32) fail(block, "CRC-32 of its records does not match; the file is damaged");
    return records;
}

namespace {

// One record of a decoded block: text, then metadata, each u32-prefixed.
struct RecordCursor {
    std::string_view bytes;
    size_t position = 0;

    bool field(std::string_view& out) {
        if (bytes.size() - position < 4) return false;
        const uint32_t length = load_u32(bytes.data() + position);
        position += 4;
        if (bytes.size() - position < length) return false;
        out = bytes.substr(position, length);
        position += length;
        return true;
    }
};

}  // namespace

StoredDocument DocumentStoreReader::document(uint64_t docid) const {
    if (!file_) {
        throw Error("this index holds no document text: build it with \"store\": {\"documents\": true} in the "
                    "pipeline (or --set store.documents=true) to keep each document's text and metadata");
    }
    if (docid >= documents_) {
        throw Error("docid " + std::to_string(docid) + " is past the index's " + std::to_string(documents_) + " documents");
    }
    const uint64_t block = block_of(docid);
    const BlockEntry entry = block_entry(block);
    if (entry.first_docid > docid) fail(block, "first docid " + std::to_string(entry.first_docid) + " is past " + std::to_string(docid));
    const std::string records = decode(block, entry);
    RecordCursor cursor{records};
    for (uint64_t d = entry.first_docid;; ++d) {
        std::string_view text, metadata;
        if (!cursor.field(text) || !cursor.field(metadata)) {
            fail(block, "ends before the record of docid " + std::to_string(docid));
        }
        if (d == docid) return StoredDocument{std::string(text), std::string(metadata)};
    }
}

void DocumentStoreReader::verify_all(const std::function<void(uint64_t, uint64_t)>& progress) const {
    if (!file_) return;
    uint64_t expected_first = 0;
    uint64_t expected_offset = layout::kDocumentTextHeaderBytes;
    for (uint64_t block = 0; block < blocks_; ++block) {
        const BlockEntry entry = block_entry(block);
        if (entry.first_docid != expected_first) {
            fail(block, "starts at docid " + std::to_string(entry.first_docid) + ", not " + std::to_string(expected_first));
        }
        if (entry.offset != expected_offset) {
            fail(block, "starts at byte " + std::to_string(entry.offset) + ", not " + std::to_string(expected_offset));
        }
        const std::string records = decode(block, entry);
        RecordCursor cursor{records};
        std::string_view text, metadata;
        while (cursor.position < records.size()) {
            if (!cursor.field(text) || !cursor.field(metadata)) fail(block, "its last record is cut short");
            ++expected_first;
        }
        expected_offset = entry.offset + entry.compressed_bytes;
        if (progress) progress(block + 1, blocks_);
    }
    if (expected_first != documents_) {
        throw FormatError(name_, "its blocks hold " + std::to_string(expected_first) + " documents, its footer says " +
                                     std::to_string(documents_));
    }
    if (expected_offset != table_offset_) {
        throw FormatError(name_, "its blocks end at byte " + std::to_string(expected_offset) + ", its table starts at " +
                                     std::to_string(table_offset_));
    }
}

}  // namespace invidx
