#include "nodes/decompress/chunk_batch.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include <oneapi/tbb/parallel_for.h>

#include "invidx/error.hpp"
#include "nodes/decompress/whole_member.hpp"

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

// The chunk's compressed bytes [offset, offset + size): a pointer into its
// block where they lie in one, else gathered into `scratch`.
const char* chunk_bytes(const GzipChunk& chunk, uint64_t offset, uint64_t size, std::string& scratch) {
    const char* direct = nullptr;
    uint64_t at = 0;  // of the current piece in the chunk
    for_each_piece(chunk, [&](const char* piece, size_t n) {
        if (direct == nullptr && offset >= at && offset + size <= at + n) direct = piece + (offset - at);
        at += n;
    });
    ensure(offset + size <= at, "a member past its chunk's end");
    if (direct != nullptr) return direct;
    scratch.resize(size);
    at = 0;
    for_each_piece(chunk, [&](const char* piece, size_t n) {
        const uint64_t from = std::max(offset, at);
        const uint64_t to = std::min(offset + size, at + n);
        if (from < to) std::memcpy(scratch.data() + (from - offset), piece + (from - at), to - from);
        at += n;
    });
    return scratch.data();
}

// Copies text[0, size) to [offset, offset + size) of a chunk's text, whose
// blocks are all `block_bytes` long but the last.
void write_text(std::vector<TextBlock>& blocks, size_t block_bytes, uint64_t offset, const char* text, uint64_t size) {
    while (size > 0) {
        const size_t index = static_cast<size_t>(offset / block_bytes);
        const size_t within = static_cast<size_t>(offset % block_bytes);
        ensure(index < blocks.size() && within < blocks[index].bytes.size(), "member text past its chunk's text");
        const size_t n = static_cast<size_t>(std::min<uint64_t>(size, blocks[index].bytes.size() - within));
        std::memcpy(blocks[index].bytes.data() + within, text, n);
        offset += n;
        text += n;
        size -= n;
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
    uint64_t text = 0;       // the batch members'
    uint64_t all_text = 0;   // the chunk's, holes included
    std::vector<ChunkMemberHole> holes;
    const auto give_up = [&](Taken taken) {
        members_.resize(first_member);
        member_text_offsets_.resize(first_member);
        return taken;
    };
    for (uint64_t start = 0; start < size;) {
        const auto next = find_gzip_member_header(bytes, size, start + 1);
        const uint64_t end = next ? *next : size;
        const uint64_t in_size = end - start;
        if (in_size < kMinMemberBytes || (static_cast<unsigned char>(bytes[start + 3]) & kHeaderCrcFlag) != 0)
            return give_up(Taken::no);
        const uint32_t isize = little_endian_32(bytes + end - 4);
        if (isize > kMaxDeflateRatio * in_size) return give_up(Taken::no);
        if (isize > max_member_text_bytes_) {
            holes.push_back(ChunkMemberHole{start, all_text, static_cast<uint32_t>(in_size), isize});
        } else {
            members_.push_back(
                InflateMember{input_used_ + start, output_used_ + text, static_cast<uint32_t>(in_size), isize});
            member_text_offsets_.push_back(all_text);
            text += isize;
        }
        all_text += isize;
        start = end;
    }
    const size_t count = members_.size() - first_member;
    // Nothing for the batch (only long members), or more text than a batch
    // holds (the chunk's blocks are allocated whole before the holes are
    // proven): the CPU decodes it.
    if (count == 0 || all_text > limits.output_bytes || count > limits.members) return give_up(Taken::no);
    if (output_used_ + text > limits.output_bytes || members_.size() > limits.members) return give_up(Taken::full);
    Entry entry;
    entry.chunk = chunk;
    entry.file_ordinal = file.ordinal;
    entry.file_name = file.name;
    entry.first_member = first_member;
    entry.member_count = count;
    entry.text_bytes = all_text;
    entry.holes = std::move(holes);
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
    member_text_offsets_.clear();
    input_used_ = 0;
    output_used_ = 0;
}

std::vector<ChunkBatch::Done> ChunkBatch::run(size_t text_block_bytes,
                                              const std::shared_ptr<BufferPool<std::string>>& buffers) {
    ensure(text_block_bytes > 0, "text block size must be positive");
    // Emptied first: whatever happens, the next batch starts empty.
    std::vector<Entry> entries = std::move(entries_);
    std::vector<InflateMember> members = std::move(members_);
    std::vector<uint64_t> text_offsets = std::move(member_text_offsets_);
    const uint64_t input_size = input_used_;
    clear();
    std::vector<Done> done(entries.size());
    if (entries.empty()) return done;
    const std::vector<InflateOutcome> outcomes = inflater_.inflate(input_size, members);
    ensure(outcomes.size() == members.size(), "a member batch inflater gave a wrong number of outcomes");
    const std::shared_ptr<const char> device_text = inflater_.device_output();
    // The chunks' text is copied out of the inflater's output on several
    // threads: one thread copies a few GB/s, the GPU inflates tens.
    oneapi::tbb::parallel_for(size_t{0}, entries.size(), [&](size_t e) {
        const Entry& entry = entries[e];
        const auto first = outcomes.begin() + static_cast<std::ptrdiff_t>(entry.first_member);
        const bool clean = std::all_of(first, first + static_cast<std::ptrdiff_t>(entry.member_count),
                                       [](const InflateOutcome& outcome) { return outcome.status == InflateStatus::ok; });
        Done& result = done[e];
        result.chunk = entry.chunk;
        result.inflated = clean;
        result.members = entry.member_count + entry.holes.size();
        result.compressed_bytes = entry.input_end - entry.input_begin;
        result.holes = entry.holes.size();
        for (const ChunkMemberHole& hole : entry.holes) result.hole_text_bytes += hole.text_size;
        if (clean) {
            result.text_bytes = entry.text_bytes;
            fill_text(entry, members, text_offsets, text_block_bytes, buffers, device_text);
        }
    });
    return done;
}

namespace {

// The part of a chunk's device spans that lies in its block of `size`
// bytes from chunk text offset `offset`, counted from the block's start;
// null where none does.
std::shared_ptr<const DeviceText> block_device_text(const std::vector<DeviceText::Span>& spans, uint64_t offset,
                                                    uint64_t size, const std::shared_ptr<const char>& buffer, int device) {
    auto text = std::make_shared<DeviceText>();
    for (const DeviceText::Span& span : spans) {
        const uint64_t begin = std::max(span.begin, offset);
        const uint64_t end = std::min(span.end, offset + size);
        if (begin >= end) continue;
        text->spans.push_back(DeviceText::Span{begin - offset, end - offset, span.address + (begin - span.begin)});
    }
    if (text->spans.empty()) return nullptr;
    text->device = device;
    text->buffer = buffer;
    return text;
}

}  // namespace

// The blocks GzipStream gives a chunk in decode_chunk (resumed at text
// offset 0): full blocks of text_block_bytes, the rest in the last, one
// empty block for no text; never the entry's beginning, its end on the last.
// Each batch member's text is copied to its place; the holes' bytes are
// left for fill_member_holes.
void ChunkBatch::fill_text(const Entry& entry, const std::vector<InflateMember>& members,
                           const std::vector<uint64_t>& text_offsets, size_t text_block_bytes,
                           const std::shared_ptr<BufferPool<std::string>>& buffers,
                           const std::shared_ptr<const char>& device_text) {
    GzipChunk& chunk = *entry.chunk;
    chunk.text.clear();
    const uint64_t total = entry.text_bytes;
    // Where the inflater kept the text on its GPU: the chunk's text that is
    // there (its batch members', not its holes'), and where.
    std::vector<DeviceText::Span> spans;
    if (device_text) {
        for (size_t m = entry.first_member; m < entry.first_member + entry.member_count; ++m) {
            const uint64_t begin = text_offsets[m];
            const char* address = device_text.get() + members[m].out_offset;
            if (!spans.empty() && spans.back().end == begin && spans.back().address + (begin - spans.back().begin) == address) {
                spans.back().end += members[m].out_size;  // the member right after the one before, in both
            } else {
                spans.push_back(DeviceText::Span{begin, begin + members[m].out_size, address});
            }
        }
    }
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
        if (entry.holes.empty()) {
            // No holes: the batch members' text is this range of the output.
            block.bytes.assign(inflater_.output() + entry.output_begin + offset, size);
        } else {
            block.bytes.resize(size);
        }
        if (!spans.empty()) block.device_text = block_device_text(spans, offset, size, device_text, inflater_.device_ordinal());
        offset += size;
        block.entry_end = offset == total;
        chunk.text.push_back(std::move(block));
    } while (offset < total);
    if (!entry.holes.empty()) {
        for (size_t m = entry.first_member; m < entry.first_member + entry.member_count; ++m)
            write_text(chunk.text, text_block_bytes, text_offsets[m], inflater_.output() + members[m].out_offset,
                       members[m].out_size);
    }
    chunk.holes = entry.holes;
    chunk.decoded = chunk.holes.empty();
    chunk.members = entry.member_count + entry.holes.size();
}

bool fill_member_holes(GzipChunk& chunk, size_t text_block_bytes) {
    ensure(text_block_bytes > 0, "text block size must be positive");
    std::string input;
    std::string text;
    for (const ChunkMemberHole& hole : chunk.holes) {
        const char* const bytes = chunk_bytes(chunk, hole.in_offset, hole.in_size, input);
        text.resize(hole.text_size);
        if (inflate_whole_member(bytes, hole.in_size, text.data(), text.size()) != InflateStatus::ok) return false;
        write_text(chunk.text, text_block_bytes, hole.text_offset, text.data(), text.size());
    }
    chunk.holes.clear();
    chunk.decoded = true;
    return true;
}

}  // namespace invidx
