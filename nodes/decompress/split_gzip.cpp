#include "nodes/decompress/split_gzip.hpp"

#include <cstring>
#include <string_view>
#include <utility>

namespace invidx {
namespace {

constexpr size_t kGzipHeaderBytes = 10;

// Calls feed(bytes, last) for each block's part of the chunk, in order.
template <class Feed>
void for_each_piece(const GzipChunk& chunk, Feed&& feed) {
    for (size_t t = 0; t < chunk.blocks.size(); ++t) {
        const auto& bytes = chunk.blocks[t]->bytes;
        const size_t from = t == 0 ? chunk.start : 0;
        const size_t to = t + 1 == chunk.blocks.size() ? chunk.end : bytes.size();
        feed(std::string_view(bytes.data() + from, to - from), chunk.final && t + 1 == chunk.blocks.size());
    }
}

void give_back(const std::shared_ptr<BufferPool<std::string>>& buffers, std::vector<TextBlock>& text) {
    if (buffers)
        for (TextBlock& block : text) buffers->give_back(std::move(block.bytes));
    text.clear();
}

}  // namespace

std::optional<size_t> find_gzip_member_header(const char* bytes, size_t size, size_t from) {
    const auto* data = reinterpret_cast<const unsigned char*>(bytes);
    while (from + kGzipHeaderBytes <= size) {
        const void* found = std::memchr(data + from, 0x1f, size - kGzipHeaderBytes + 1 - from);
        if (found == nullptr) return std::nullopt;
        const size_t at = static_cast<size_t>(static_cast<const unsigned char*>(found) - data);
        const unsigned char* h = data + at;
        const bool xfl_known = h[8] == 0 || h[8] == 2 || h[8] == 4;
        const bool os_known = h[9] <= 13 || h[9] == 255;
        if (h[1] == 0x8b && h[2] == 8 && (h[3] & 0xe0) == 0 && xfl_known && os_known) return at;
        from = at + 1;
    }
    return std::nullopt;
}

GzipChunker::GzipChunker(size_t max_blocks) : max_blocks_(std::max<size_t>(1, max_blocks)) {}

void GzipChunker::push(const std::shared_ptr<const RawBlock>& block, const std::function<void(GzipChunkPtr)>& send) {
    const auto start_chunk = [&](size_t start) {
        pending_ = std::make_shared<GzipChunk>();
        pending_->file_ordinal = block->file_ordinal;
        pending_->index = next_index_++;
        pending_->blocks.push_back(block);
        pending_->start = start;
    };
    const auto finish_chunk = [&](size_t end, bool final, bool decode) {
        pending_->end = end;
        pending_->final = final;
        pending_->decode = decode;
        send(std::move(pending_));
        pending_.reset();
    };
    const size_t size = block->bytes.size();
    if (block->first) {
        next_index_ = 0;
        in_order_only_ = false;
        start_chunk(0);
    } else if (in_order_only_) {
        start_chunk(0);
        finish_chunk(size, block->last, false);
        return;
    } else if (const auto header = find_gzip_member_header(block->bytes.data(), size, 0)) {
        pending_->blocks.push_back(block);
        finish_chunk(*header, false, true);
        start_chunk(*header);
    } else {
        pending_->blocks.push_back(block);
        if (pending_->blocks.size() > max_blocks_) {
            // No member ends within reach: holding more blocks could starve
            // the read node of tokens. The rest is decoded in order.
            in_order_only_ = true;
            finish_chunk(size, block->last, false);
            return;
        }
    }
    if (block->last) finish_chunk(size, true, true);
}

void decode_chunk(GzipChunk& chunk, const InputFile& file, size_t text_block_bytes,
                  const std::shared_ptr<BufferPool<std::string>>& buffers, GzipDecoders decoders) {
    chunk.decoded = false;
    if (!chunk.decode) return;
    try {
        GzipStream stream(file, text_block_bytes, buffers, decoders);
        stream.resume(chunk.blocks.front()->file_offset + chunk.start, 0, 0);
        // Every chunk is fed as if it ended the file: it must end between
        // members (zero padding only where the file ends).
        for (size_t t = 0; t < chunk.blocks.size(); ++t) {
            const auto& bytes = chunk.blocks[t]->bytes;
            const size_t from = t == 0 ? chunk.start : 0;
            const size_t to = t + 1 == chunk.blocks.size() ? chunk.end : bytes.size();
            stream.feed(std::string_view(bytes.data() + from, to - from), t + 1 == chunk.blocks.size(),
                        [&](TextBlock&& text) { chunk.text.push_back(std::move(text)); });
        }
        chunk.decoded = chunk.final || !stream.in_padding();
        chunk.members = stream.members();
    } catch (const std::exception&) {
        chunk.decoded = false;  // the reassembler decodes it in order, and names any damage
    }
    if (!chunk.decoded) give_back(buffers, chunk.text);
}

Lease chunk_lease(const GzipChunk& chunk) {
    std::vector<Lease> leases;
    leases.reserve(chunk.blocks.size());
    for (const auto& block : chunk.blocks) leases.push_back(block->lease);
    return Lease(new char(0), [leases = std::move(leases)](void* p) { delete static_cast<char*>(p); });
}

GzipReassembler::GzipReassembler(size_t text_block_bytes, std::shared_ptr<BufferPool<std::string>> buffers)
    : text_block_bytes_(text_block_bytes), buffers_(std::move(buffers)) {}

void GzipReassembler::push(GzipChunkPtr chunk, const InputFile& file, const Emit& emit) {
    const uint32_t ordinal = chunk->file_ordinal;
    FileState& state = files_[ordinal];
    const uint64_t index = chunk->index;
    state.order.push(index, std::move(chunk), [&](const GzipChunkPtr& next) { take(state, *next, file, emit); });
    if (state.done) files_.erase(ordinal);
}

void GzipReassembler::take(FileState& state, GzipChunk& chunk, const InputFile& file, const Emit& emit) {
    const Lease lease = chunk_lease(chunk);
    if (!state.in_order && chunk.decoded) {
        for (size_t i = 0; i < chunk.text.size(); ++i) {
            const bool last = chunk.final && i + 1 == chunk.text.size();
            if (chunk.text[i].bytes.empty() && !last) continue;
            send(state, std::move(chunk.text[i]), last, lease, emit);
        }
        state.members += chunk.members;
        give_back(buffers_, chunk.text);
    } else {
        give_back(buffers_, chunk.text);
        if (!state.in_order) {
            // Every chunk before this one decoded and ended between members,
            // so this one starts at a proven boundary: from here on, in order.
            state.in_order.emplace(file, text_block_bytes_, buffers_);
            state.in_order->resume(chunk.blocks.front()->file_offset + chunk.start, state.text_offset, state.members);
            ++files_in_order_;
        }
        for_each_piece(chunk, [&](std::string_view bytes, bool last) {
            state.in_order->feed(bytes, last, [&](TextBlock&& text) {
                const bool ends = text.entry_end;
                send(state, std::move(text), ends, lease, emit);
            });
        });
    }
    if (chunk.final) state.done = true;
    chunk.blocks.clear();
}

void GzipReassembler::send(FileState& state, TextBlock&& text, bool last, const Lease& lease, const Emit& emit) {
    text.file_block = state.next_block++;
    text.entry_begin = !state.begun;
    state.begun = true;
    text.entry_offset = state.text_offset;
    state.text_offset += text.bytes.size();
    text.entry_end = last;
    text.file_end = last;
    text.lease = lease;
    emit(std::move(text));
}

}  // namespace invidx
