#include "store/document_store_writer.hpp"

#include <algorithm>
#include <fstream>

#include <fcntl.h>
#include <unistd.h>

#include "invidx/error.hpp"
#include "store/block_compression.hpp"
#include "store/crc32.hpp"
#include "store/document_store_layout.hpp"
#include "store/little_endian_append.hpp"

namespace invidx {

DocumentStoreWriter::DocumentStoreWriter(const std::filesystem::path& path, int level, unsigned compression_threads)
    : level_(level),
      out_(std::make_unique<BinaryWriter>(path, SyncOnFinish::no)),
      table_(std::make_unique<BinaryWriter>(std::filesystem::path(path.string() + ".table"), SyncOnFinish::no)) {
    out_->bytes(layout::kDocumentTextMagic);
    out_->u32(layout::kDocumentTextVersion);
    out_->u32(0);  // reserved
    ensure(level >= kMinCompressionLevel && level <= kMaxCompressionLevel,
           "document store compression level " + std::to_string(level) + " is not in [0, 12]");
    if (compression_threads == 0) compression_threads = std::max(1u, std::thread::hardware_concurrency() / 2);
    // Framing stored blocks costs about a copy: two threads keep up with any build.
    if (level == 0) compression_threads = std::min(compression_threads, 2u);
    max_in_flight_ = 4 * size_t{compression_threads};
    for (unsigned i = 0; i < compression_threads; ++i) threads_.emplace_back([this] { compress_loop(); });
    writer_ = std::thread([this] { write_loop(); });
}

DocumentStoreWriter::~DocumentStoreWriter() { stop_threads(); }

void DocumentStoreWriter::stop_threads() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    work_ready_.notify_all();
    block_done_.notify_all();
    for (auto& thread : threads_) thread.join();
    threads_.clear();
    if (writer_.joinable()) writer_.join();
}

void DocumentStoreWriter::rethrow_failure() {
    if (failure_) std::rethrow_exception(failure_);
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
            compress_block(block->raw, block->compressed, level_);
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
        if (error) space_.notify_all();
    }
}

namespace {

// Starts the disk writing the file's bytes while the build runs, each
// kStep behind the end (past BinaryWriter's buffer), without waiting for it:
// publish then fsyncs a file that is mostly on disk already, where an
// uncompressed store of gigabytes would otherwise keep it waiting seconds.
class WriteBehind {
public:
    explicit WriteBehind(const std::filesystem::path& path) {
#if defined(__linux__)
        fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);  // -1: no write-behind, nothing else changes
#else
        (void)path;
#endif
    }
    ~WriteBehind() {
        if (fd_ >= 0) ::close(fd_);
    }
    WriteBehind(const WriteBehind&) = delete;
    WriteBehind& operator=(const WriteBehind&) = delete;

    void written_up_to(uint64_t position) {
#if defined(__linux__)
        if (fd_ < 0 || position < started_ + 2 * kStep) return;
        const uint64_t end = position - kStep;
        (void)::sync_file_range(fd_, static_cast<off_t>(started_), static_cast<off_t>(end - started_), SYNC_FILE_RANGE_WRITE);
        started_ = end;
#else
        (void)position;
#endif
    }

private:
    static constexpr uint64_t kStep = uint64_t{16} << 20;
    int fd_ = -1;
    uint64_t started_ = 0;
};

}  // namespace

void DocumentStoreWriter::write_loop() {
    WriteBehind write_behind(out_->path());
    for (;;) {
        std::shared_ptr<PendingBlock> front;
        {
            std::unique_lock lock(mutex_);
            block_done_.wait(lock, [&] {
                return stopping_ || failure_ || (input_closed_ && in_flight_.empty()) ||
                       (!in_flight_.empty() && in_flight_.front()->done);
            });
            if (stopping_ || failure_ || in_flight_.empty()) return;
            front = std::move(in_flight_.front());
            in_flight_.pop_front();
        }
        space_.notify_all();
        try {
            write(*front);  // the files are written by this thread only, until finish() joins it
            write_behind.written_up_to(out_->position());
        } catch (...) {
            {
                std::lock_guard lock(mutex_);
                if (!failure_) failure_ = std::current_exception();
            }
            space_.notify_all();
            return;
        }
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
    block_.reserve(layout::kDocumentTextBlockBytes + 4096);  // one allocation for most blocks
    block_first_docid_ = documents_;
    {
        std::unique_lock lock(mutex_);
        rethrow_failure();
        in_flight_.push_back(block);
        to_compress_.push_back(std::move(block));
        work_ready_.notify_one();
        // Bounded: with the most blocks on their way, wait for the oldest to be written.
        space_.wait(lock, [&] { return failure_ || in_flight_.size() <= max_in_flight_; });
        rethrow_failure();
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
    {
        std::lock_guard lock(mutex_);
        input_closed_ = true;
    }
    block_done_.notify_all();
    if (writer_.joinable()) writer_.join();  // every block written, or a failure
    stop_threads();
    {
        std::lock_guard lock(mutex_);
        rethrow_failure();
        ensure(in_flight_.empty(), "document store: blocks left unwritten");
    }
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
