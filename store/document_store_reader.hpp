// Reads documents-text.bin (store/document_store_layout.hpp) of an open
// index: a document's text as the parser saw it and its metadata (a JSONL
// record's fields other than "id" and "contents", as a JSON object's text).
// A lookup decodes the one block that holds the docid, verified by the
// index's block checksums and the block's own CRC-32.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "store/index_reader.hpp"

namespace invidx {

struct StoredDocument {
    std::string text;
    std::string metadata;  // empty: the document has none
};

class DocumentStoreReader {
public:
    // `index` must outlive the reader.
    explicit DocumentStoreReader(const IndexReader& index);

    // Whether the index was built with "store": {"documents": true}.
    bool present() const { return file_ != nullptr; }
    uint64_t documents() const { return documents_; }
    uint64_t blocks() const { return blocks_; }

    // An invidx::Error when the index has no store (saying how to build
    // one), a NotFound-like Error for a docid past the end, a FormatError
    // naming the file and block when the block is damaged.
    StoredDocument document(uint64_t docid) const;

    // Decodes every block and checks its records add up (invidx check
    // --full); `progress` is called after each block with (done, total).
    void verify_all(const std::function<void(uint64_t, uint64_t)>& progress = {}) const;

private:
    struct BlockEntry {
        uint64_t first_docid = 0;
        uint64_t offset = 0;
        uint64_t compressed_bytes = 0;
        uint64_t uncompressed_bytes = 0;
        uint32_t crc32 = 0;
    };
    BlockEntry block_entry(uint64_t block) const;
    uint64_t block_of(uint64_t docid) const;
    // The block's records, decoded and checked against its CRC-32.
    std::string decode(uint64_t block, const BlockEntry& entry) const;
    [[noreturn]] void fail(uint64_t block, const std::string& problem) const;

    const VerifiedFile* file_ = nullptr;
    std::string name_;
    uint64_t documents_ = 0;
    uint64_t blocks_ = 0;
    uint64_t table_offset_ = 0;
};

}  // namespace invidx
