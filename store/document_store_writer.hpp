// Writes documents-text.bin (store/document_store_layout.hpp) as documents
// come, in docid order: a block's records are compressed and written once
// they reach the block size, the block table goes to a scratch file beside
// it, so memory holds one block whatever the collection's size.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "store/binary_io.hpp"

namespace invidx {

class DocumentStoreWriter {
public:
    explicit DocumentStoreWriter(const std::filesystem::path& path);

    // The next docid's text and metadata (a JSON object's text, or empty).
    void append(std::string_view text, std::string_view metadata);
    uint64_t documents() const { return documents_; }
    // Writes the last block, the table and the footer and the trailing
    // CRC-32 (not synced: the index writer syncs at publish). The writer is
    // done; what it wrote stays readable through the returned writer.
    const BinaryWriter& finish();

private:
    void write_block();

    std::unique_ptr<BinaryWriter> out_;
    std::unique_ptr<BinaryWriter> table_;  // scratch: one entry per block
    std::string block_;                    // records of the block in progress
    std::string compressed_;
    uint64_t block_first_docid_ = 0;
    uint64_t documents_ = 0;
    uint64_t blocks_ = 0;
};

}  // namespace invidx
