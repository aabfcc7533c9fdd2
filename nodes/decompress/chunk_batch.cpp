#include "nodes/decompress/chunk_batch.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "invidx/error.hpp"

namespace invidx {
namespace {

// The smallest gzip member: a 10-byte header, an empty final deflate block
// (2 bytes), the 8-byte trailer.
constexpr uint64_t kMinMemberBytes = 20;
// FLG.FHCRC: a CRC-16 of the header follows it. zlib checks it where other
// inflaters may skip it, so such members stay on the CPU.
constexpr unsigned char kHeaderCrcFlag = 0x02;
// Deflate's largest ratio of text to compressed bytes (a 258-byte match in
// 2 bits, about 1032:1): a larger ISIZE is no member's.
constexpr uint64_t kMaxDeflateRatio = 1032;

uint32_t little_endian_32(const char* bytes) {
    const auto* b = reinterpret_cast<const unsigned char*>(bytes);
    return uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
}

// Calls piece(bytes, size) for each block's part of the chunk, in order.
template <class Piece>
void for_each_piece(const GzipChunk& chunk, Piece&& piece) {
    for (size_t t = 0; t < chunk.blocks.size(); ++t) {
        const auto& bytes = chunk.blocks[t]->bytes;
        const size_t from = t == 0 ? chunk.start : 0;
        const size_t to = t + 1 == chunk.blocks.size() ? chunk.end : bytes.size();
        piece(bytes.data() + from, to - from);
    }
}

}  // namespace

ChunkBatch::ChunkBatch(MemberBatchInflater& inflater, uint32_t max_member_text_bytes)
    : inflater_(inflater), max_member_text_bytes_(max_member_text_bytes) {}

ChunkBatch::Taken ChunkBatch::take(const GzipChunkPtr& chunk, const InputFile& file) {
    if (!chunk->decode || chunk->blocks.empty()) return Taken::no;
    const MemberBatchLimits& limits = inflater_.limits();
    uint64_t size = 0;
    for_each_piece(*chunk, [&](const char*, size_t n) { size += n; });
    if (size > limits.input_bytes) return Taken::no;
    if (input_used_ + size > limits.input_bytes) return Taken::full;
    char* const bytes = inflater_.input() + input_used_;
    uint64_t copied = 0;
    for_each_piece(*chunk, [&](const char* piece, size_t n) {
        std::memcpy(bytes + copied, piece, n);
        copied += n;
    });
    // The chunk starts at a member header (split_gzip.hpp); each header found
    // after it is taken to start the next member.
    if (find_gzip_member_header(bytes, size, 0) != size_t{0}) return Taken::no;
    const size_t first_member = members_.size();
    uint64_t text = 0;
    const auto give_up = [&](Taken taken) {
        members_.resize(first_member);
        return taken;
    };
    for (uint64_t start = 0; start < size;) {
        const auto next = find_gzip_member_header(bytes, size, start + 1);
        const uint64_t end = next ? *next : size;
        const uint64_t in_size = end - start;
        if (in_size < kMinMemberBytes || (static_cast<unsigned char>(bytes[start + 3]) & kHeaderCrcFlag) != 0)
            return give_up(Taken::no);
        const uint32_t isize = little_endian_32(bytes + end - 4);
        if (isize > max_member_text_bytes_ || isize > kMaxDeflateRatio * in_size) return give_up(Taken::no);
        members_.push_back(InflateMember{input_used_ + start, output_used_ + text, static_cast<uint32_t>(in_size), isize});
        text += isize;
        start = end;
    }
    const size_t count = members_.size() - first_member;
    if (text > limits.output_bytes || count > limits.members) return give_up(Taken::no);
    if (output_used_ + text > limits.output_bytes || members_.size() > limits.members) return give_up(Taken::full);
    Entry entry;
    entry.chunk = chunk;
    entry.file_ordinal = file.ordinal;
    entry.file_name = file.name;
    entry.first_member = first_member;
    entry.member_count = count;
    entry.input_begin = input_used_;
    entry.input_end = input_used_ + size;
    entry.output_begin = output_used_;
    entry.output_end = output_used_ + text;
    entries_.push_back(std::move(entry));
    input_used_ += size;
    output_used_ += text;
    return Taken::yes;
}

void ChunkBatch::clear() {
    entries_.clear();
    members_.clear();
    input_used_ = 0;
    output_used_ = 0;
}

std::vector<ChunkBatch::Done> ChunkBatch::run(size_t text_block_bytes,
                                              const std::shared_ptr<BufferPool<std::string>>& buffers) {
    ensure(text_block_bytes > 0, "text block size must be positive");
    // Emptied first: whatever happens, the next batch starts empty.
    std::vector<Entry> entries = std::move(entries_);
    std::vector<InflateMember> members = std::move(members_);
    const uint64_t input_size = input_used_;
    clear();
    std::vector<Done> done;
    if (entries.empty()) return done;
    const std::vector<InflateOutcome> outcomes = inflater_.inflate(input_size, members);
    ensure(outcomes.size() == members.size(), "a member batch inflater gave a wrong number of outcomes");
    done.reserve(entries.size());
    for (const Entry& entry : entries) {
        const auto first = outcomes.begin() + static_cast<std::ptrdiff_t>(entry.first_member);
        const bool clean = std::all_of(first, first + static_cast<std::ptrdiff_t>(entry.member_count),
                                       [](const InflateOutcome& outcome) { return outcome.status == InflateStatus::ok; });
        Done result;
        result.chunk = entry.chunk;
        result.inflated = clean;
        result.members = entry.member_count;
        result.compressed_bytes = entry.input_end - entry.input_begin;
        if (clean) {
            result.text_bytes = entry.output_end - entry.output_begin;
            fill_text(entry, text_block_bytes, buffers);
        }
        done.push_back(std::move(result));
    }
    return done;
}

// The blocks GzipStream gives a chunk in decode_chunk (resumed at text
// offset 0): full blocks of text_block_bytes, the rest in the last, one
// empty block for no text; never the entry's beginning, its end on the last.
void ChunkBatch::fill_text(const Entry& entry, size_t text_block_bytes,
                           const std::shared_ptr<BufferPool<std::string>>& buffers) {
    GzipChunk& chunk = *entry.chunk;
    chunk.text.clear();
    const char* const text = inflater_.output() + entry.output_begin;
    const uint64_t total = entry.output_end - entry.output_begin;
    uint64_t offset = 0;
    do {
        const size_t size = static_cast<size_t>(std::min<uint64_t>(text_block_bytes, total - offset));
        TextBlock block;
        block.file_ordinal = entry.file_ordinal;
        block.entry_index = 0;
        block.entry_name = entry.file_name;
        block.entry_offset = offset;
        block.entry_begin = false;
        if (buffers) block.bytes = buffers->take();
        block.bytes.assign(text + offset, size);
        offset += size;
        block.entry_end = offset == total;
        chunk.text.push_back(std::move(block));
    } while (offset < total);
    chunk.decoded = true;
    chunk.members = entry.member_count;
}

}  // namespace invidx
