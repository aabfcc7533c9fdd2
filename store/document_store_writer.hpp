// Writes documents-text.bin (store/document_store_layout.hpp) as documents
// come, in docid order. The caller (the frame node's one docid step) only
// copies records into the block in progress: full blocks are compressed (or
// framed as stored, at level 0) by a few threads of the writer's own and
// written in block order by one more, so neither checksums nor file writes
// run on the caller's thread. The block table goes to a scratch file beside
// it. Memory: the block in progress plus at most `max_in_flight` blocks on
// their way, whatever the collection's size; the caller waits beyond that.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "store/binary_io.hpp"

namespace invidx {

class DocumentStoreWriter {
public:
    // `level`: the blocks' zlib level (store/block_compression.hpp; 0
    // stores them uncompressed). compression_threads 0: about half the
    // cores (at least one), two at most at level 0.
    DocumentStoreWriter(const std::filesystem::path& path, int level, unsigned compression_threads = 0);
    ~DocumentStoreWriter();
    DocumentStoreWriter(const DocumentStoreWriter&) = delete;
    DocumentStoreWriter& operator=(const DocumentStoreWriter&) = delete;

    // The next docid's text and metadata (a JSON object's text, or empty).
    void append(std::string_view text, std::string_view metadata);
    uint64_t documents() const { return documents_; }
    // Writes the last blocks, the table and the footer and the trailing
    // CRC-32 (not synced: the index writer syncs at publish). The writer is
    // done; what it wrote stays readable through the returned writer.
    const BinaryWriter& finish();

private:
    // One block on its way: raw records in, compressed bytes and the raw
    // bytes' CRC-32 out.
    struct PendingBlock {
        uint64_t first_docid = 0;
        std::string raw;
        std::string compressed;
        uint32_t crc = 0;
        bool done = false;
    };

    void submit_block();
    void rethrow_failure();  // with mutex_ held
    void write(PendingBlock& block);
    void compress_loop();
    void write_loop();
    void stop_threads();

    const int level_;
    std::unique_ptr<BinaryWriter> out_;
    std::unique_ptr<BinaryWriter> table_;  // scratch: one entry per block
    std::string block_;                    // records of the block in progress
    uint64_t block_first_docid_ = 0;
    uint64_t documents_ = 0;
    uint64_t blocks_ = 0;

    // Blocks in block order; the front is written first once done.
    std::deque<std::shared_ptr<PendingBlock>> in_flight_;
    std::deque<std::shared_ptr<PendingBlock>> to_compress_;
    size_t max_in_flight_ = 0;
    std::mutex mutex_;
    std::condition_variable work_ready_;   // to the compression threads
    std::condition_variable block_done_;   // to the writing thread
    std::condition_variable space_;        // to the caller: a block was written
    std::exception_ptr failure_;           // the first compression or write error
    bool input_closed_ = false;            // finish(): no more blocks; write the rest
    bool stopping_ = false;                // threads return
    std::vector<std::thread> threads_;     // compression
    std::thread writer_;                   // writes done blocks in block order
};

}  // namespace invidx
