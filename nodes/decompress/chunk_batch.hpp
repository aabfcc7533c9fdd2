// Chunks of split gzip files (split_gzip.hpp) inflated together as one batch
// of whole members by a MemberBatchInflater (a GPU worker's, in the
// decompress node). A chunk's members are taken to be the ranges between
// the member headers a byte scan finds in it (find_gzip_member_header), each
// one's text length the ISIZE of its last 4 bytes. Where that is wrong (a
// header that is bytes inside compressed data, damage, trailing garbage,
// zero padding) some member of the chunk does not inflate cleanly, and the
// whole chunk is left to decode_chunk on the CPU, whose text or error is
// the one users see. A chunk whose every member inflates cleanly gets the
// text blocks decode_chunk would have given it, field for field, so the
// text and every error are the same with or without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/buffer_pool.hpp"
#include "nodes/decompress/member_batch_inflater.hpp"
#include "nodes/decompress/split_gzip.hpp"

namespace invidx {

// A member longer than this (its ISIZE) leaves its chunk to the CPU: a GPU
// inflates each member on its own, one after another in its bytes, so one
// long member would hold up its whole batch. 4 MiB keeps Common Crawl's
// records (their content cut at 1 MiB) on the GPU and whole-file gzip
// members off it.
inline constexpr uint32_t kMaxBatchMemberTextBytes = uint32_t{4} << 20;

class ChunkBatch {
public:
    explicit ChunkBatch(MemberBatchInflater& inflater, uint32_t max_member_text_bytes = kMaxBatchMemberTextBytes);

    enum class Taken {
        yes,     // its members are in the batch
        full,    // it would fit an empty batch, not this one: run this one first
        no,      // never for this batch: decode it on the CPU (decode_chunk)
    };
    // Copies `chunk`'s bytes into the inflater's input and finds its
    // members. `file` is the chunk's file (its name goes into the text).
    Taken take(const GzipChunkPtr& chunk, const InputFile& file);

    bool empty() const { return entries_.empty(); }
    size_t chunks() const { return entries_.size(); }
    // Lets go of the chunks taken, uninflated (a failed build).
    void clear();

    struct Done {
        GzipChunkPtr chunk;
        bool inflated = false;       // its text is filled; false: decode it on the CPU
        uint64_t members = 0;        // of the chunk, as the scan found them
        uint64_t compressed_bytes = 0;
        uint64_t text_bytes = 0;     // when inflated
    };
    // Inflates the batch, fills the text, decoded and members of every chunk
    // whose members all inflated cleanly (text blocks of at most
    // `text_block_bytes`, their bytes taken from `buffers` when given), and
    // empties the batch. One Done per chunk, in the order they were taken.
    std::vector<Done> run(size_t text_block_bytes, const std::shared_ptr<BufferPool<std::string>>& buffers);

private:
    struct Entry {
        GzipChunkPtr chunk;
        uint32_t file_ordinal = 0;
        std::string file_name;
        size_t first_member = 0;  // into members_
        size_t member_count = 0;
        uint64_t input_begin = 0;
        uint64_t input_end = 0;
        uint64_t output_begin = 0;
        uint64_t output_end = 0;
    };
    void fill_text(const Entry& entry, size_t text_block_bytes, const std::shared_ptr<BufferPool<std::string>>& buffers);

    MemberBatchInflater& inflater_;
    const uint32_t max_member_text_bytes_;
    std::vector<Entry> entries_;
    std::vector<InflateMember> members_;
    uint64_t input_used_ = 0;
    uint64_t output_used_ = 0;
};

}  // namespace invidx
