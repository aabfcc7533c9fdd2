#include "store/document_store_writer.hpp"

#include <algorithm>
#include <fstream>

#include "invidx/error.hpp"
#include "store/block_compression.hpp"
#include "store/crc32.hpp"
#include "store/document_store_layout.hpp"
#include "store/little_endian_append.hpp"

namespace invidx {

DocumentStoreWriter::DocumentStoreWriter(const std::filesystem::path& path, unsigned compression_threads)
    : out_(std::make_unique<BinaryWriter>(path, SyncOnFinish::no)),
      table_(std::make_unique<BinaryWriter>(std::filesystem::path(path.string() + ".table"), SyncOnFinish::no)) {
    out_->bytes(layout::kDocumentTextMagic);
    out_->u32(layout::kDocumentTextVersion);
    out_->u32(0);  // reserved
    if (compression_threads == 0) compression_threads = std::max(1u, std::thread::hardware_concurrency() / 2);
    max_in_flight_ = 4 * size_t{compression_threads};
    for (unsigned i = 0; i < compression_threads; ++i) threads_.emplace_back([this] { compress_loop(); });
}

DocumentStoreWriter::~DocumentStoreWriter() { stop_threads(); }

void DocumentStoreWriter::stop_threads() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    work_ready_.notify_all();
    for (auto& thread : threads_) thread.join();
    threads_.clear();
}

void DocumentStoreWriter::compress_loop() {
    for (;;) {
        std::shared_ptr<PendingBlock> block;
        {
            std::unique_lock lock(mutex_);
            work_ready_.wait(lock, [&] { return stopping_ || !to_compress_.empty(); });
            if (to_compress_.empty()) return;  // stopping, nothing left
            block = std::move(to_compress_.front());
            to_compress_.pop_front();
        }
        std::exception_ptr error;
        try {
            compress_block(block->raw, block->compressed);
            block->crc = crc32(block->raw);
        } catch (...) {
            error = std::current_exception();
        }
        {
            std::lock_guard lock(mutex_);
            if (error && !failure_) failure_ = error;
            block->done = true;
        }
        block_done_.notify_all();
    }
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
    if (block_.size() >= layout::kDocumentTextBlockBytes) submit_block();
}

void DocumentStoreWriter::submit_block() {
    if (block_.empty()) return;
    auto block = std::make_shared<PendingBlock>();
    block->first_docid = block_first_docid_;
    block->raw.swap(block_);
    block_first_docid_ = documents_;
    {
        std::lock_guard lock(mutex_);
        in_flight_.push_back(block);
        to_compress_.push_back(std::move(block));
    }
    work_ready_.notify_one();
    // Bounded: with the most blocks in flight, wait for the oldest.
    write_done_blocks(false);
}

void DocumentStoreWriter::write_done_blocks(bool wait_for_all) {
    for (;;) {
        std::shared_ptr<PendingBlock> front;
        {
            std::unique_lock lock(mutex_);
            if (in_flight_.empty()) break;
            const bool must_wait = wait_for_all || in_flight_.size() > max_in_flight_;
            if (must_wait) block_done_.wait(lock, [&] { return in_flight_.front()->done || failure_; });
            if (failure_) std::rethrow_exception(failure_);
            if (!in_flight_.front()->done) break;
            front = std::move(in_flight_.front());
            in_flight_.pop_front();
        }
        write(*front);  // files are written by the caller's thread only
    }
}

void DocumentStoreWriter::write(PendingBlock& block) {
    table_->u64(block.first_docid);
    table_->u64(out_->position());
    table_->u64(block.compressed.size());
    table_->u64(block.raw.size());
    table_->u32(block.crc);
    out_->bytes(block.compressed);
    ++blocks_;
}

const BinaryWriter& DocumentStoreWriter::finish() {
    ensure(out_ != nullptr, "document store finished twice");
    submit_block();
    write_done_blocks(true);
    stop_threads();
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
