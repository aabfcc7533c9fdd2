#include "nodes/decompress/stream_piece_batch.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include <oneapi/tbb/parallel_for.h>

#include "invidx/error.hpp"

namespace invidx {

StreamPieceBatch::StreamPieceBatch(PieceBatchDecoder& decoder) : decoder_(decoder) {}

StreamPieceBatch::Taken StreamPieceBatch::take(const GzipChunkPtr& chunk) {
    if (!chunk->stream || chunk->stream->step != PieceStep::search || chunk->stream->first || chunk->blocks.empty())
        return Taken::no;
    const PieceBatchLimits& limits = decoder_.limits();
    const RawBlock& block = *chunk->blocks.front();
    auto segment = std::find_if(segments_.begin(), segments_.end(), [&](const Segment& s) { return s.block == &block; });
    const size_t lookahead =
        chunk->blocks.size() > 1 ? std::min(kGpuPieceLookaheadBytes, chunk->blocks[1]->bytes.size()) : 0;
    const uint64_t segment_size = block.bytes.size() + lookahead;
    if (segment_size > limits.input_bytes || limits.piece_symbols == 0 || limits.pieces == 0) return Taken::no;
    if (pieces_.size() + 1 > limits.pieces || output_used_ + limits.piece_symbols > limits.output_symbols)
        return Taken::full;
    if (segment == segments_.end()) {
        if (input_used_ + segment_size > limits.input_bytes) return Taken::full;
        char* to = decoder_.input() + input_used_;
        std::memcpy(to, block.bytes.data(), block.bytes.size());
        if (lookahead > 0) std::memcpy(to + block.bytes.size(), chunk->blocks[1]->bytes.data(), lookahead);
        segments_.push_back(Segment{&block, input_used_, segment_size});
        segment = segments_.end() - 1;
        input_used_ += segment_size;
    }
    // As the CPU's search (split_gzip.cpp, work_on_stream_piece): the
    // piece's bytes from its start, every position of them searched, and a
    // stop at the next piece's first byte unless it is the file's last.
    GpuStreamPiece piece;
    piece.in_offset = segment->input_offset + chunk->start;
    piece.in_size = static_cast<uint32_t>(segment->size - chunk->start);
    piece.out_offset = output_used_;
    piece.out_capacity = limits.piece_symbols;
    piece.bounds.search_bit = 0;
    piece.bounds.search_end_bit = uint64_t{piece.in_size} * 8;
    const uint64_t base = block.file_offset + chunk->start;
    if (!chunk->final) {
        piece.bounds.stop_bit = (chunk->stream->stop_offset - base) * 8;
        piece.bounds.has_stop = 1;
    }
    pieces_.push_back(piece);
    entries_.push_back(Entry{chunk, base});
    output_used_ += limits.piece_symbols;
    return Taken::yes;
}

void StreamPieceBatch::clear() {
    segments_.clear();
    entries_.clear();
    pieces_.clear();
    input_used_ = 0;
    output_used_ = 0;
}

std::vector<StreamPieceBatch::Done> StreamPieceBatch::run(PieceSymbolPool& symbols) {
    std::vector<Entry> entries = std::move(entries_);
    std::vector<GpuStreamPiece> pieces = std::move(pieces_);
    const uint64_t input_size = input_used_;
    clear();
    std::vector<Done> done(entries.size());
    if (entries.empty()) return done;
    const std::vector<inflate::PieceOutcome> outcomes = decoder_.decode(input_size, pieces);
    ensure(outcomes.size() == pieces.size(), "a piece batch decoder gave a wrong number of outcomes");
    // Each piece's symbols copied out of the decoder's output on several
    // threads: one thread copies a few GB/s (and faults in fresh buffers),
    // the GPU decodes some tens.
    oneapi::tbb::parallel_for(size_t{0}, entries.size(), [&](size_t i) {
        Done& d = done[i];
        d.chunk = std::move(entries[i].chunk);
        d.compressed_bytes = d.chunk->end - d.chunk->start;
        const inflate::PieceOutcome& o = outcomes[i];
        if (!o.ok) return;
        const uint64_t base = entries[i].base;
        DeflatePiece piece;
        piece.ok = true;
        piece.no_block = o.no_block != 0;
        piece.start_bit = o.start_bit + base * 8;
        piece.end_bit = o.end_bit + base * 8;
        piece.final_block = o.final_block != 0;
        piece.trailer_read = o.trailer_read != 0;
        piece.trailer_crc = o.trailer_crc;
        piece.trailer_size = o.trailer_size;
        piece.after_trailer = o.after_trailer + base;
        PieceSymbols s = symbols.take();
        if (s.capacity < o.symbols || !s.data) {
            s.data.reset(new uint16_t[std::max<uint32_t>(o.symbols, 1)]);
            s.capacity = std::max<uint32_t>(o.symbols, 1);
        }
        std::memcpy(s.data.get(), decoder_.text(i), size_t{o.symbols} * sizeof(uint16_t));
        s.text_begin = 0;
        s.size = o.symbols;
        piece.symbols = std::move(s);
        d.chunk->stream->piece = std::move(piece);
        d.decoded = true;
        d.symbols = o.symbols;
    });
    return done;
}

}  // namespace invidx
