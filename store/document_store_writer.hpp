// Writes documents-text.bin (store/document_store_layout.hpp) as documents
// come, in docid order. Full blocks are compressed by a few threads of the
// writer's own (the caller, the frame node's one docid step, only copies
// bytes) and written in block order by the caller; the block table goes to
// a scratch file beside it. Memory: the block in progress plus at most
// `max_in_flight` blocks being compressed, whatever the collection's size.
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
    // compression_threads 0: about half the cores (at least one).
    explicit DocumentStoreWriter(const std::filesystem::path& path, unsigned compression_threads = 0);
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
    void write_done_blocks(bool wait_for_all);
    void write(PendingBlock& block);
    void compress_loop();
    void stop_threads();

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
    std::condition_variable block_done_;   // to the caller
    std::exception_ptr failure_;           // the first compression error
    bool stopping_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace invidx
