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
//
// A member longer than the batch's cap is not inflated in the batch: one
// warp decodes a member, so one long member would hold up the whole batch.
// Its chunk's other members are, and the long ones are left as holes in the
// chunk's text (GzipChunk::holes) for a CPU worker to fill
// (fill_member_holes), each a whole member for libdeflate.
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

// A member longer than this (its ISIZE) is left to the CPU, the rest of its
// chunk inflated in the batch: a warp decodes a member at some tens of MB/s,
// so a batch lasts as long as its longest member; the default keeps most
// web pages on the GPU and a batch's tail to milliseconds.
inline constexpr uint32_t kMaxBatchMemberTextBytes = uint32_t{256} << 10;

class ChunkBatch {
public:
    explicit ChunkBatch(MemberBatchInflater& inflater, uint32_t max_member_text_bytes = kMaxBatchMemberTextBytes);

    enum class Taken {
        yes,     // its members are in the batch
        full,    // it would fit an empty batch, not this one: run this one first
        no,      // never for this batch (nothing to inflate here, or not members): decode it on the CPU (decode_chunk)
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
        bool inflated = false;       // its batch members inflated and their text is in place; false: decode it on the CPU
        uint64_t members = 0;        // of the chunk, as the scan found them (holes included)
        uint64_t compressed_bytes = 0;
        uint64_t text_bytes = 0;     // when inflated: the chunk's text, holes included
        uint64_t holes = 0;          // long members left to fill_member_holes
        uint64_t hole_text_bytes = 0;
    };
    // Inflates the batch, and for every chunk whose batch members all
    // inflated cleanly fills its text (text blocks of at most
    // `text_block_bytes`, their bytes taken from `buffers` when given; the
    // holes' bytes unset), members and holes, and decoded where it has no
    // holes; then empties the batch. One Done per chunk, in the order taken.
    // Where the inflater kept the batch's text on its GPU (device_output),
    // each block says which of its bytes are there, and where
    // (TextBlock::device_text: the batch members' text, not the holes').
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
        uint64_t output_begin = 0;   // of the batch members' text in the output
        uint64_t output_end = 0;
        uint64_t text_bytes = 0;     // of the whole chunk, holes included
        std::vector<ChunkMemberHole> holes;
    };
    void fill_text(const Entry& entry, const std::vector<InflateMember>& members,
                   const std::vector<uint64_t>& text_offsets, size_t text_block_bytes,
                   const std::shared_ptr<BufferPool<std::string>>& buffers,
                   const std::shared_ptr<const char>& device_text);

    MemberBatchInflater& inflater_;
    const uint32_t max_member_text_bytes_;
    std::vector<Entry> entries_;
    std::vector<InflateMember> members_;
    std::vector<uint64_t> member_text_offsets_;  // of each of members_ in its chunk's text
    uint64_t input_used_ = 0;
    uint64_t output_used_ = 0;
};

// A CPU worker: inflates the holes a batch left in `chunk`'s text
// (inflate_whole_member), so that it is decoded. False, leaving the text
// as it is, where one does not inflate cleanly: then decode the chunk with
// decode_chunk, whose text or error is the one users see.
bool fill_member_holes(GzipChunk& chunk, size_t text_block_bytes);

}  // namespace invidx
