#include "nodes/decompress/streaming_decompressor.hpp"

#include <utility>

#include "graph/thread_names.hpp"
#include "invidx/error.hpp"
#include "nodes/decompress/archive_stream.hpp"

namespace invidx {
namespace {

// Thrown inside the decoder when the decompressor shuts it down; never
// leaves the decoder thread.
struct DecoderCancelled {};

ErrorContext decompress_context(const std::string& file) {
    return ErrorContext{.node = "decompress", .file = file, .record = std::nullopt, .byte_offset = std::nullopt};
}

}  // namespace

// The decoder's end of the channel: hands out the pushed blocks in order and
// keeps the current one alive until libarchive asks for the next.
class StreamingDecompressor::ChannelSource final : public ByteSource {
public:
    explicit ChannelSource(StreamingDecompressor& owner) : owner_(owner) {}

    std::string_view next() override {
        // The previous block (and its lease) goes before waiting for the
        // next, so an idle decoder holds none of the engine's tokens, and
        // outside the lock, since a lease's release may run engine code.
        current_.reset();
        std::unique_lock lock(owner_.mutex_);
        for (;;) {
            if (owner_.cancelled_) throw DecoderCancelled{};
            if (ended_) return {};
            if (owner_.input_.empty()) {
                // Idle: everything pushed so far is decoded (push() waits for this).
                owner_.starved_ = true;
                owner_.changed_.notify_all();
                owner_.changed_.wait(lock);
                continue;
            }
            owner_.starved_ = false;
            current_ = std::move(owner_.input_.front());
            owner_.input_.pop_front();
            owner_.changed_.notify_all();
            ended_ = current_->last;
            if (!current_->bytes.empty()) return {current_->bytes.data(), current_->bytes.size()};
        }
    }

private:
    StreamingDecompressor& owner_;
    std::shared_ptr<const RawBlock> current_;
    bool ended_ = false;
};

namespace {

// A file that came in one block: its bytes once, then the end.
class OneBlockSource final : public ByteSource {
public:
    explicit OneBlockSource(std::string_view bytes) : bytes_(bytes) {}
    std::string_view next() override { return std::exchange(bytes_, std::string_view{}); }

private:
    std::string_view bytes_;
};

}  // namespace

void StreamingDecompressor::decode_one_block(const RawBlock& block, const InputFile& file, const Emit& emit) {
    OneBlockSource source(std::string_view(block.bytes.data(), block.bytes.size()));
    ArchiveStream stream(source, file);
    emit_text_blocks(stream, file, text_block_bytes_, [&](TextBlock&& text) {
        text.lease = block.lease;
        emit(std::move(text));
        return true;
    });
}

StreamingDecompressor::StreamingDecompressor(size_t text_block_bytes) : text_block_bytes_(text_block_bytes) {
    ensure(text_block_bytes_ > 0, "text block size must be positive", decompress_context(""));
}

StreamingDecompressor::~StreamingDecompressor() { abandon(); }

void StreamingDecompressor::decode(InputFile file) {
    std::exception_ptr error;
    try {
        ChannelSource source(*this);
        ArchiveStream stream(source, file);
        emit_text_blocks(stream, file, text_block_bytes_, [this](TextBlock&& block) {
            // Never waits: push() drains this queue, and waiting here while
            // push() waits for channel space would deadlock.
            std::lock_guard lock(mutex_);
            if (cancelled_) return false;
            output_.push_back(std::move(block));
            changed_.notify_all();
            return true;
        });
    } catch (const DecoderCancelled&) {
    } catch (...) {
        error = std::current_exception();
    }
    std::lock_guard lock(mutex_);
    decoder_error_ = error;
    decoder_done_ = true;
    changed_.notify_all();
}

void StreamingDecompressor::start(const InputFile& file) {
    {
        std::lock_guard lock(mutex_);
        input_.clear();
        output_.clear();
        decoder_done_ = false;
        starved_ = false;
        cancelled_ = false;
        decoder_error_ = nullptr;
    }
    active_ = true;
    active_ordinal_ = file.ordinal;
    ignored_ordinal_.reset();
    ++decoder_threads_started_;
    decoder_ = std::thread([this, file] {
        name_this_thread("invidx-archive");
        decode(file);
    });
}

void StreamingDecompressor::drain(std::unique_lock<std::mutex>& lock, const Lease& lease, const Emit& emit) {
    while (!output_.empty()) {
        TextBlock block = std::move(output_.front());
        output_.pop_front();
        block.lease = lease;
        lock.unlock();
        emit(std::move(block));
        lock.lock();
    }
}

void StreamingDecompressor::finish(std::unique_lock<std::mutex>& lock) {
    std::exception_ptr error = std::exchange(decoder_error_, nullptr);
    input_.clear();
    lock.unlock();
    decoder_.join();
    active_ = false;
    if (error) std::rethrow_exception(error);
}

void StreamingDecompressor::abandon() {
    {
        std::lock_guard lock(mutex_);
        cancelled_ = true;
        changed_.notify_all();
    }
    if (decoder_.joinable()) decoder_.join();
    std::lock_guard lock(mutex_);
    input_.clear();
    output_.clear();
    active_ = false;
}

void StreamingDecompressor::push(const RawBlock& block, const InputFile& file, const Emit& emit) {
    push(std::make_shared<const RawBlock>(block), file, emit);
}

void StreamingDecompressor::push(std::shared_ptr<const RawBlock> block, const InputFile& file,
                                 const Emit& emit) {
    ensure(block != nullptr, "null block pushed", decompress_context(file.path));
    if (block->end_of_input) return;
    if (block->first) {
        if (active_) {
            const uint32_t unfinished = active_ordinal_;
            abandon();
            throw Error("file " + std::to_string(file.ordinal) + " started before file " +
                            std::to_string(unfinished) + " got its last block",
                        decompress_context(file.path));
        }
        if (block->last) {
            // The whole file in one block, as every small file comes: the
            // same ArchiveStream decodes it here, on this thread, without a
            // decoder thread to start and hand its bytes to and back.
            decode_one_block(*block, file, emit);
            return;
        }
        start(file);
    } else if (!active_) {
        if (ignored_ordinal_ == block->file_ordinal) return;
        throw Error("block at offset " + std::to_string(block->file_offset) + " of file " +
                        std::to_string(block->file_ordinal) + " came without its first block",
                    decompress_context(file.path));
    }
    // Not kept past this call: holding a token between pushes could starve
    // the read node of the token it needs for the next block.
    const Lease lease = block->lease;
    const bool last = block->last;

    std::unique_lock lock(mutex_);
    // Wait for channel space, emitting decoded output meanwhile, so output
    // never piles up beyond what the queued blocks decode to.
    for (;;) {
        drain(lock, lease, emit);
        if (decoder_done_) break;
        if (input_.size() < kChannelBlocks) {
            input_.push_back(std::move(block));
            changed_.notify_all();
            break;
        }
        changed_.wait(lock);
    }
    // Wait until the decoder has taken in everything pushed and is idle (or
    // done), emitting as it goes. No work is then left outside the flow
    // graph when this body returns: otherwise the graph could look finished
    // (wait_for_all returns) while decoded text and the tokens it holds wait
    // here for a push that never comes.
    for (;;) {
        drain(lock, lease, emit);
        if (decoder_done_) break;
        if (!last && starved_ && input_.empty()) break;
        changed_.wait(lock);
    }
    if (decoder_done_) {
        // Done before the last block: an error, or an archive whose end
        // marker came before the end of the file (tar padding): the rest of
        // this file's blocks are ignored.
        if (!last) ignored_ordinal_ = active_ordinal_;
        finish(lock);
    }
}

}  // namespace invidx
