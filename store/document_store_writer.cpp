#include "store/document_store_writer.hpp"

#include <fstream>

#include "invidx/error.hpp"
#include "store/block_compression.hpp"
#include "store/crc32.hpp"
#include "store/document_store_layout.hpp"
#include "store/little_endian_append.hpp"

namespace invidx {

DocumentStoreWriter::DocumentStoreWriter(const std::filesystem::path& path)
    : out_(std::make_unique<BinaryWriter>(path, SyncOnFinish::no)),
      table_(std::make_unique<BinaryWriter>(std::filesystem::path(path.string() + ".table"), SyncOnFinish::no)) {
    out_->bytes(layout::kDocumentTextMagic);
    out_->u32(layout::kDocumentTextVersion);
    out_->u32(0);  // reserved
}

void DocumentStoreWriter::append(std::string_view text, std::string_view metadata) {
    ensure(out_ != nullptr, "document store appended to after finish");
    ensure(text.size() <= UINT32_MAX && metadata.size() <= UINT32_MAX,
           "docid " + std::to_string(documents_) + ": a document of 4 GiB or more cannot be stored");
    put_u32(block_, static_cast<uint32_t>(text.size()));
    block_ += text;
    put_u32(block_, static_cast<uint32_t>(metadata.size()));
    block_ += metadata;
    ++documents_;
    if (block_.size() >= layout::kDocumentTextBlockBytes) write_block();
}

void DocumentStoreWriter::write_block() {
    if (block_.empty()) return;
    compressed_.clear();
    compress_block(block_, compressed_);
    table_->u64(block_first_docid_);
    table_->u64(out_->position());
    table_->u64(compressed_.size());
    table_->u64(block_.size());
    table_->u32(crc32(block_));
    out_->bytes(compressed_);
    ++blocks_;
    block_first_docid_ = documents_;
    block_.clear();
}

const BinaryWriter& DocumentStoreWriter::finish() {
    ensure(out_ != nullptr, "document store finished twice");
    write_block();
    const uint64_t table_offset = out_->position();
    const auto scratch_path = table_->path();
    table_->finish();
    table_.reset();
    {
        std::ifstream scratch(scratch_path, std::ios::binary);
        ensure(static_cast<bool>(scratch), "cannot reopen " + scratch_path.string());
        std::string chunk(1 << 20, '\0');
        while (scratch) {
            scratch.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
            out_->bytes(std::string_view(chunk.data(), static_cast<size_t>(scratch.gcount())));
        }
    }
    std::filesystem::remove(scratch_path);
    out_->u64(documents_);
    out_->u64(blocks_);
    out_->u64(table_offset);
    out_->finish_with_crc();
    return *out_;
}

}  // namespace invidx
