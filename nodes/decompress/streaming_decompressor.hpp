// Adapts pull-based libarchive to the push-based flow graph: the read node
// pushes RawBlocks, libarchive wants to pull. Each file is decoded by an
// ArchiveStream on its own decoder thread, fed through a small bounded channel
// of RawBlocks; decoded TextBlocks come back through an output queue that
// push() drains on the caller's thread. A file that comes in one block (a
// small file) is decoded by the same ArchiveStream on the caller's thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "nodes/decompress/decompress_file.hpp"
#include "invidx/messages.hpp"

namespace invidx {

class StreamingDecompressor {
public:
    using Emit = std::function<void(TextBlock&&)>;

    explicit StreamingDecompressor(size_t text_block_bytes = kDefaultTextBlockBytes);
    // Stops a decoder that is still running (a file whose last block never
    // came, or one that failed) and joins it; never blocks on input.
    ~StreamingDecompressor();
    StreamingDecompressor(const StreamingDecompressor&) = delete;
    StreamingDecompressor& operator=(const StreamingDecompressor&) = delete;

    // Feeds the next block of `file`. Blocks of a file arrive in order and
    // block.first starts a new one; end_of_input blocks are ignored. `emit`
    // gets, on the calling thread and in order, every TextBlock decoded so
    // far, each with the lease of the most recent block pushed; on block.last
    // push() waits until the file is decoded and emits the rest. Decoder
    // errors are rethrown here as invidx::Error (file/entry/offset); the
    // remaining blocks of a failed file are then ignored.
    void push(const RawBlock& block, const InputFile& file, const Emit& emit);
    // The same without copying the bytes: the channel holds the pointer.
    void push(std::shared_ptr<const RawBlock> block, const InputFile& file, const Emit& emit);

    // How many files so far were decoded on a decoder thread: those that
    // came in more than one block.
    size_t decoder_threads_started() const { return decoder_threads_started_; }

private:
    class ChannelSource;
    // A file whose first block is its last, decoded on the calling thread.
    void decode_one_block(const RawBlock& block, const InputFile& file, const Emit& emit);
    void start(const InputFile& file);
    void decode(InputFile file);
    // Pops ready output and emits it with the lock released.
    void drain(std::unique_lock<std::mutex>& lock, const Lease& lease, const Emit& emit);
    // Joins the finished decoder; rethrows its error.
    void finish(std::unique_lock<std::mutex>& lock);
    void abandon();

    // One channel capacity of blocks waits for the decoder (plus the one it
    // is decoding): enough to overlap reading and decoding, no more.
    static constexpr size_t kChannelBlocks = 2;

    const size_t text_block_bytes_;
    std::mutex mutex_;
    std::condition_variable changed_;  // input popped, output pushed, decoder done or cancelled
    std::deque<std::shared_ptr<const RawBlock>> input_;
    std::deque<TextBlock> output_;
    bool starved_ = false;       // the decoder waits for input with none queued
    bool decoder_done_ = false;
    bool cancelled_ = false;
    std::exception_ptr decoder_error_;
    std::thread decoder_;

    // Owned by the pushing thread only.
    size_t decoder_threads_started_ = 0;
    bool active_ = false;
    uint32_t active_ordinal_ = 0;
    std::optional<uint32_t> ignored_ordinal_;  // a file that finished early or failed
};

}  // namespace invidx
