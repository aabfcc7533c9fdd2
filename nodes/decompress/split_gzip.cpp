#include "nodes/decompress/split_gzip.hpp"

#include <cstring>
#include <string_view>
#include <utility>

#include <zlib.h>

#include "invidx/error.hpp"
#include "nodes/decompress/file_byte_source.hpp"

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

GzipStreamChunker::GzipStreamChunker(size_t piece_bytes) : piece_bytes_(std::max<size_t>(1, piece_bytes)) {}

void GzipStreamChunker::push(const std::shared_ptr<const RawBlock>& block,
                             const std::function<void(GzipChunkPtr)>& send) {
    if (block->first) {
        held_.reset();
        next_index_ = 0;
    }
    if (held_) send_pieces(held_, block, send);
    held_ = block;
    if (block->last) {
        send_pieces(block, nullptr, send);
        held_.reset();
    }
}

void GzipStreamChunker::send_pieces(const std::shared_ptr<const RawBlock>& block,
                                    const std::shared_ptr<const RawBlock>& next,
                                    const std::function<void(GzipChunkPtr)>& send) {
    const size_t size = block->bytes.size();
    const size_t pieces = std::max<size_t>(1, (size + piece_bytes_ - 1) / piece_bytes_);
    for (size_t p = 0; p < pieces; ++p) {
        auto chunk = std::make_shared<GzipChunk>();
        chunk->file_ordinal = block->file_ordinal;
        chunk->index = next_index_++;
        chunk->blocks.push_back(block);
        if (next) chunk->blocks.push_back(next);
        chunk->start = size * p / pieces;
        chunk->end = size * (p + 1) / pieces;
        chunk->final = !next && p + 1 == pieces;
        chunk->stream = std::make_shared<StreamPieceJob>();
        chunk->stream->first = block->first && p == 0;
        chunk->stream->stop_offset = block->file_offset + chunk->end;
        send(std::move(chunk));
    }
}

PieceSymbols PieceSymbolPool::take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty()) return {};
    PieceSymbols symbols = std::move(free_.back());
    free_.pop_back();
    return symbols;
}

void PieceSymbolPool::give_back(PieceSymbols symbols) {
    if (!symbols.data) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.size() < keep_) free_.push_back(std::move(symbols));
}

namespace {

// The piece's bytes from its start on, contiguous: the rest of its read
// block where the piece ends well inside it (no copy), else the piece and
// `lookahead` bytes of the next block (all of it when `lookahead` is 0),
// copied into `scratch`. Its last deflate block runs past its end, for
// some tens of KiB in zlib's streams.
std::string_view piece_bytes(const GzipChunk& chunk, size_t lookahead, std::string& scratch) {
    constexpr size_t kLookaheadInBlock = size_t{1} << 20;
    const auto& first = chunk.blocks.front()->bytes;
    const std::string_view head(first.data() + chunk.start, first.size() - chunk.start);
    if (chunk.blocks.size() == 1 || first.size() - chunk.end >= kLookaheadInBlock) return head;
    const auto& next = chunk.blocks[1]->bytes;
    const size_t take = lookahead == 0 ? next.size() : std::min(lookahead, next.size());
    scratch.assign(head);
    scratch.append(next.data(), take);
    return scratch;
}

// A piece's offsets from its bytes' to the file's.
void to_file_offsets(DeflatePiece& piece, uint64_t base) {
    piece.start_bit += base * 8;
    piece.end_bit += base * 8;
    piece.after_trailer += base;
}

}  // namespace

void work_on_stream_piece(GzipChunk& chunk, size_t text_block_bytes,
                          const std::shared_ptr<BufferPool<std::string>>& buffers, PieceSymbolPool& symbols) {
    StreamPieceJob& job = *chunk.stream;
    const uint64_t base = chunk.blocks.front()->file_offset + chunk.start;
    if (job.step == PieceStep::resolve) {
        const PieceSymbols& s = job.piece.symbols;
        const std::string_view window = job.window ? std::string_view(*job.window) : std::string_view();
        job.resolved = true;
        job.text_crc = 0;
        job.text_size = s.text_size();
        for (size_t at = 0; at < s.text_size(); at += text_block_bytes) {
            const size_t count = std::min(text_block_bytes, s.text_size() - at);
            TextBlock text;
            if (buffers) text.bytes = buffers->take();
            text.bytes.resize(count);
            if (!resolve_piece_text(s.text() + at, count, window, text.bytes.data())) job.resolved = false;
            job.text_crc = gzip_crc32(job.text_crc, text.bytes.data(), text.bytes.size());
            chunk.text.push_back(std::move(text));
        }
        symbols.give_back(std::move(job.piece.symbols));
        job.piece.symbols = {};
        return;
    }
    thread_local std::string scratch;
    DeflatePieceLimits limits;
    if (!chunk.final) limits.stop_bit = (job.stop_offset - base) * 8;
    symbols.give_back(std::move(job.piece.symbols));
    if (job.step == PieceStep::redo && job.redo_bit < base * 8) {
        job.piece = DeflatePiece{};
        return;
    }
    // A short lookahead first; all of the next block where it was not enough.
    for (const size_t lookahead : {size_t{1} << 20, size_t{0}}) {
        const std::string_view bytes = piece_bytes(chunk, lookahead, scratch);
        if (job.step == PieceStep::redo) {
            const std::string_view window = job.window ? std::string_view(*job.window) : std::string_view();
            job.piece = decode_deflate_from(bytes, job.redo_bit - base * 8, window, limits, symbols.take());
        } else if (job.first) {
            const std::optional<size_t> header = gzip_header_length(bytes);
            job.piece = header ? decode_deflate_from(bytes, *header * 8, {}, limits, symbols.take()) : DeflatePiece{};
        } else {
            job.piece = decode_deflate_piece(bytes, 0, bytes.size() * 8, limits, symbols.take());
        }
        const bool whole_lookahead = chunk.blocks.size() == 1 || bytes.data() != scratch.data() ||
                                     scratch.size() == chunk.blocks.front()->bytes.size() - chunk.start +
                                                           chunk.blocks[1]->bytes.size();
        if (job.piece.ok || whole_lookahead) break;
        symbols.give_back(std::move(job.piece.symbols));
    }
    to_file_offsets(job.piece, base);
}

Lease chunk_lease(const GzipChunk& chunk) {
    std::vector<Lease> leases;
    leases.reserve(chunk.blocks.size());
    for (const auto& block : chunk.blocks) leases.push_back(block->lease);
    return Lease(new char(0), [leases = std::move(leases)](void* p) { delete static_cast<char*>(p); });
}

// A one-stream file's pieces, as the reassembler takes them.
struct GzipReassembler::FileState::Stream {
    std::map<uint64_t, GzipChunkPtr> decoded;   // back from search or redo, by index
    std::map<uint64_t, GzipChunkPtr> resolved;  // back from resolve, by index
    uint64_t next_decoded = 0;   // the next piece to accept
    uint64_t next_emitted = 0;   // the next piece whose text goes out
    uint64_t expected_bit = 0;   // where the next piece must start
    std::string window;          // the last 32 KiB of the text accepted
    bool waiting_for_redo = false;
    bool stream_ended = false;   // a piece with the final block was accepted: later pieces hold no text
    uint64_t arrived = 0;        // pieces back from search
    std::optional<uint64_t> total;  // pieces of the file, once the final one arrived
    uint64_t away = 0;           // pieces sent back to the workers, not back yet
    uint32_t crc = 0;            // of the text emitted
    uint64_t size = 0;
    bool decoded_again = false;  // the file was decoded again whole: pieces are dropped
    bool ended = false;          // the final piece's text went out
    TextBlock joined;            // small pieces' text not sent yet (send_piece_text)...
    size_t joined_count = 0;     // ...of this many blocks
    Lease joined_lease;          // the last of them's
};

GzipReassembler::GzipReassembler(size_t text_block_bytes, std::shared_ptr<BufferPool<std::string>> buffers,
                                 std::shared_ptr<PieceSymbolPool> symbols)
    : text_block_bytes_(text_block_bytes), buffers_(std::move(buffers)), symbols_(std::move(symbols)) {}

void GzipReassembler::push(GzipChunkPtr chunk, const InputFile& file, const Emit& emit, const Resend& resend) {
    const uint32_t ordinal = chunk->file_ordinal;
    FileState& state = files_[ordinal];
    if (chunk->stream) {
        take_piece(state, std::move(chunk), file, emit, resend);
        const FileState::Stream& stream = *state.stream;
        if ((stream.ended || stream.decoded_again) && stream.total && stream.arrived == *stream.total &&
            stream.away == 0)
            files_.erase(ordinal);
        return;
    }
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

void GzipReassembler::take_piece(FileState& state, GzipChunkPtr chunk, const InputFile& file, const Emit& emit,
                                 const Resend& resend) {
    if (!state.stream) state.stream = std::make_shared<FileState::Stream>();
    FileState::Stream& stream = *state.stream;
    StreamPieceJob& job = *chunk->stream;
    if (job.step == PieceStep::search) {
        ++stream.arrived;
        if (chunk->final) stream.total = chunk->index + 1;
    } else {
        --stream.away;
    }
    if (stream.decoded_again) {
        if (symbols_) symbols_->give_back(std::move(job.piece.symbols));
        give_back(buffers_, chunk->text);
        return;
    }
    const uint64_t index = chunk->index;
    if (job.step == PieceStep::resolve) {
        stream.resolved.emplace(index, std::move(chunk));
        emit_pieces(state, file, emit);
    } else {
        if (job.step == PieceStep::redo) stream.waiting_for_redo = false;
        stream.decoded.emplace(index, std::move(chunk));
        accept_pieces(state, file, emit, resend);
    }
}

// Pieces in order: each must start where the one before ended; its window
// passes on, and a worker writes its text.
void GzipReassembler::accept_pieces(FileState& state, const InputFile& file, const Emit& emit, const Resend& resend) {
    FileState::Stream& stream = *state.stream;
    while (!stream.waiting_for_redo && !stream.decoded_again) {
        const auto it = stream.decoded.find(stream.next_decoded);
        if (it == stream.decoded.end()) return;
        GzipChunkPtr chunk = std::move(it->second);
        stream.decoded.erase(it);
        StreamPieceJob& job = *chunk->stream;
        DeflatePiece& piece = job.piece;
        ++stream.next_decoded;
        if (stream.stream_ended) {
            // The stream's final block began in a piece before: this one
            // holds the rest of that block and the trailer, no text.
            if (symbols_) symbols_->give_back(std::move(piece.symbols));
            continue;
        }
        // A piece with no block start before its stop holds the inside of
        // the block the one before ended in: it passes through where that
        // one ended at or past its stop. Else a block did start in it
        // (past what its bytes let its search decode): decoded again below.
        if (piece.ok && piece.no_block && !job.first && stream.expected_bit >= piece.end_bit) {
            piece.start_bit = piece.end_bit = stream.expected_bit;
            piece.no_block = false;
        }
        // A piece where the member ends (its final block may begin in a
        // piece before the file's last) must hold the member's trailer.
        const bool fits = piece.ok && (job.first || piece.start_bit == stream.expected_bit) &&
                          (!piece.final_block || piece.trailer_read);
        if (!fits) {
            if (job.step == PieceStep::search && !job.first && piece.start_bit != stream.expected_bit) {
                // The piece found another boundary (or none): decoded again
                // from where the one before ended, with its window.
                job.step = PieceStep::redo;
                job.redo_bit = stream.expected_bit;
                job.window = std::make_shared<const std::string>(stream.window);
                stream.waiting_for_redo = true;
                --stream.next_decoded;
                ++stream.away;
                ++pieces_redone_;
                resend(std::move(chunk));
                return;
            }
            decode_file_again(state, file, chunk_lease(*chunk), emit);
            return;
        }
        // The window after this piece: the last 32 KiB of the one before and its text.
        auto before = std::make_shared<const std::string>(stream.window);
        const PieceSymbols& s = piece.symbols;
        const size_t tail = std::min<size_t>(s.text_size(), kDeflateWindowBytes);
        std::string tail_text(tail, '\0');
        if (!resolve_piece_text(s.text() + s.text_size() - tail, tail, *before, tail_text.data())) {
            decode_file_again(state, file, chunk_lease(*chunk), emit);
            return;
        }
        stream.window.append(tail_text);
        if (stream.window.size() > kDeflateWindowBytes)
            stream.window.erase(0, stream.window.size() - kDeflateWindowBytes);
        stream.expected_bit = piece.end_bit;
        if (piece.final_block) stream.stream_ended = true;
        job.step = PieceStep::resolve;
        job.window = std::move(before);
        ++stream.away;
        resend(std::move(chunk));
    }
}

// Resolved pieces in order: their text goes out; the final one's trailer
// is checked first.
void GzipReassembler::emit_pieces(FileState& state, const InputFile& file, const Emit& emit) {
    FileState::Stream& stream = *state.stream;
    while (!stream.decoded_again) {
        const auto it = stream.resolved.find(stream.next_emitted);
        if (it == stream.resolved.end()) return;
        GzipChunkPtr chunk = std::move(it->second);
        stream.resolved.erase(it);
        const StreamPieceJob& job = *chunk->stream;
        const Lease lease = chunk_lease(*chunk);
        if (!job.resolved) {
            give_back(buffers_, chunk->text);
            decode_file_again(state, file, lease, emit);
            return;
        }
        const uint32_t crc =
            static_cast<uint32_t>(crc32_combine(stream.crc, job.text_crc, static_cast<z_off_t>(job.text_size)));
        const uint64_t size = stream.size + job.text_size;
        const DeflatePiece& piece = job.piece;
        if (piece.final_block && !(piece.trailer_read && piece.trailer_crc == crc &&
                                   piece.trailer_size == static_cast<uint32_t>(size))) {
            // The member's trailer does not hold its text's CRC-32 and size.
            give_back(buffers_, chunk->text);
            decode_file_again(state, file, lease, emit);
            return;
        }
        // The file ends with this piece, or goes on after the member
        // (another member, zero padding): then in order from there.
        const bool ending = piece.final_block && piece.after_trailer == file.size_bytes;
        const bool more = piece.final_block && !ending;
        stream.crc = crc;
        stream.size = size;
        if (ending && chunk->text.empty()) chunk->text.emplace_back();
        for (size_t i = 0; i < chunk->text.size(); ++i) {
            const bool last = ending && i + 1 == chunk->text.size();
            TextBlock& text = chunk->text[i];
            if (text.bytes.empty() && !last) continue;
            text.file_ordinal = file.ordinal;
            text.entry_index = 0;
            text.entry_name = file.name;
            send_piece_text(state, std::move(text), last, lease, emit);
        }
        give_back(buffers_, chunk->text);
        ++stream.next_emitted;
        if (ending) stream.ended = true;
        chunk->blocks.clear();
        if (more) {
            decode_file_again(state, file, lease, emit, piece.after_trailer);
            return;
        }
    }
}

// The file decoded in order by a GzipStream, as a worker would without
// pieces: from its start (text already sent is skipped), or from `member`,
// the byte after a member whose text was all sent and checked. The rest
// goes out, and damage throws the error GzipStream gives.
void GzipReassembler::decode_file_again(FileState& state, const InputFile& file, const Lease& lease,
                                        const Emit& emit, uint64_t member) {
    FileState::Stream& stream = *state.stream;
    // Text joined so far goes out first: it counts as sent.
    if (stream.joined_count > 0) send_joined(state, false, emit);
    stream.decoded_again = true;
    ++(member > 0 ? stream_files_continued_ : stream_files_decoded_again_);
    for (auto& [index, chunk] : stream.decoded) {
        if (symbols_) symbols_->give_back(std::move(chunk->stream->piece.symbols));
    }
    for (auto& [index, chunk] : stream.resolved) give_back(buffers_, chunk->text);
    stream.decoded.clear();
    stream.resolved.clear();
    const uint64_t sent = state.text_offset;
    GzipStream again(file, text_block_bytes_, buffers_);
    if (member > 0) again.resume(member, sent, 1);
    FileByteSource in(file.path, size_t{4} << 20, member);
    const auto take = [&](TextBlock&& text) {
        const uint64_t begin = text.entry_offset;
        const uint64_t end = begin + text.bytes.size();
        const bool last = text.entry_end;
        if (end <= sent && !last) {
            if (buffers_) buffers_->give_back(std::move(text.bytes));
            return;
        }
        if (begin < sent) text.bytes.erase(0, static_cast<size_t>(std::min(sent, end) - begin));
        send(state, std::move(text), last, lease, emit);
    };
    for (std::string_view bytes = in.next(); !bytes.empty(); bytes = in.next()) again.feed(bytes, false, take);
    again.feed({}, true, take);
}

// A piece's text block. Blocks of less than a quarter of text_block_bytes
// (the text of GPU pieces, some 100 KB each) are joined into blocks of
// three quarters of text_block_bytes or more first: the frame node copies
// out the text of a batch in progress at every block's end, and would copy
// most of it (and parse smaller batches). The joined text holds the lease of its last piece's
// blocks, the earlier pieces' read blocks going back meanwhile: at most
// text_block_bytes a file beyond the tokens.
void GzipReassembler::send_piece_text(FileState& state, TextBlock&& text, bool last, const Lease& lease,
                                      const Emit& emit) {
    FileState::Stream& stream = *state.stream;
    if (text.bytes.size() >= text_block_bytes_ / 4) {
        if (stream.joined_count > 0) send_joined(state, false, emit);
        send(state, std::move(text), last, lease, emit);
        return;
    }
    if (stream.joined_count > 0 && stream.joined.bytes.size() + text.bytes.size() > text_block_bytes_)
        send_joined(state, false, emit);
    if (stream.joined_count == 0) {
        stream.joined = std::move(text);  // copied only once a second one comes
    } else {
        if (stream.joined.bytes.capacity() < text_block_bytes_) {
            std::string bytes = buffers_ ? buffers_->take() : std::string();
            bytes.clear();
            bytes.reserve(text_block_bytes_);
            bytes.append(stream.joined.bytes);
            if (buffers_) buffers_->give_back(std::move(stream.joined.bytes));
            stream.joined.bytes = std::move(bytes);
        }
        stream.joined.bytes.append(text.bytes);
        if (buffers_) buffers_->give_back(std::move(text.bytes));
    }
    ++stream.joined_count;
    stream.joined_lease = lease;
    if (last || stream.joined.bytes.size() >= text_block_bytes_ / 4 * 3) send_joined(state, last, emit);
}

void GzipReassembler::send_joined(FileState& state, bool last, const Emit& emit) {
    FileState::Stream& stream = *state.stream;
    if (stream.joined_count > 1) small_blocks_joined_ += stream.joined_count;
    stream.joined_count = 0;
    const Lease lease = std::move(stream.joined_lease);
    stream.joined_lease = {};
    TextBlock text = std::move(stream.joined);
    stream.joined = TextBlock{};
    send(state, std::move(text), last, lease, emit);
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
