#include "nodes/decompress/decompress_node.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "devices/gpu_devices.hpp"
#include "graph/async_worker.hpp"
#include "graph/buffer_pool.hpp"
#include "graph/guard.hpp"
#include "graph/in_order.hpp"
#include "graph/token_pool.hpp"
#include "invidx/error.hpp"
#include "nodes/decompress/chunk_batch.hpp"
#include "nodes/decompress/chunk_latency.hpp"
#include "nodes/decompress/gpu_inflate_backend.hpp"
#include "nodes/decompress/gzip_stream.hpp"
#include "nodes/decompress/inflate_gpus.hpp"
#include "nodes/decompress/piece_batch_decoder.hpp"
#include "nodes/decompress/stream_piece_batch.hpp"
#include "nodes/decompress/split_gzip.hpp"
#include "nodes/decompress/streaming_decompressor.hpp"
#include "invidx/available_cores.hpp"

namespace invidx {
namespace {

namespace flow = oneapi::tbb::flow;
using In = std::shared_ptr<const RawBlock>;
using Out = std::shared_ptr<const TextBlock>;

// A raw block on its way to one worker, numbered in that worker's order.
struct Routed {
    uint64_t sequence = 0;
    In block;
};

using RouterBody = flow::multifunction_node<In, std::tuple<Out>>;
using WorkerBody = flow::multifunction_node<Routed, std::tuple<Out>>;
using ReassemblerBody = flow::multifunction_node<GzipChunkPtr, std::tuple<Out>>;
using ChunkDecoderBody = flow::function_node<GzipChunkPtr, GzipChunkPtr, flow::rejecting>;
using GpuInflateBody = flow::async_node<GzipChunkPtr, GzipChunkPtr>;

// Whether files of one gzip stream are cut into pieces ("split_gzip_streams").
enum class StreamSplit { off, on, automatic };
// Compressed bytes of a piece: a read block of 4 MiB gives four, so one
// block's text is decoded on four cores.
constexpr uint64_t kDefaultStreamPieceBytes = uint64_t{1} << 20;

// Compressed bytes of a piece where the GPU workers search pieces
// ("gpu_stream_pieces"): a warp decodes a piece at some tens of MB/s of
// text, so a batch needs hundreds of pieces, each short (on an H200 the
// kernel decoded 15.5 GB/s of text in 32 KiB pieces, 10.4 in 128 KiB).
constexpr uint64_t kDefaultGpuStreamPieceBytes = uint64_t{32} << 10;

// Batches a GPU worker keeps in device memory at once: their text blocks
// go through framing and wait for a GPU parser slot, some batches' worth
// under the default tokens; a batch that finds every buffer held is
// uploaded again by its parser, as before.
constexpr size_t kDefaultResidentBatches = 8;

struct GpuInflateSettings {
    size_t batch_bytes = kDefaultGpuBatchBytes;          // compressed, per batch
    uint32_t member_bytes = kMaxBatchMemberTextBytes;    // longer members are the CPU's
    unsigned workers_per_gpu = 2;
    bool stream_pieces = false;                          // the GPU workers search stream pieces too
    size_t stream_piece_bytes = kDefaultGpuStreamPieceBytes;
    // Batches whose text a GPU worker keeps in device memory for the GPU
    // parsers there (TextBlock::device_text), at most this many at once
    // (docs/PIPELINE.md, "GPU inflate"); only on GPUs that parse.
    size_t resident_batches = kDefaultResidentBatches;
    std::vector<int> parse_gpus;
};

// What one kind of chunk decoder did, for the report: the CPU decoders
// together, or one GPU worker.
struct ChunkDecoderCounts {
    std::atomic<uint64_t> chunks{0};            // decoded on their own here
    std::atomic<uint64_t> members{0};           // in those chunks
    std::atomic<uint64_t> compressed_bytes{0};
    std::atomic<uint64_t> text_bytes{0};
    std::atomic<uint64_t> busy_ns{0};
    std::atomic<uint64_t> batches{0};           // a GPU worker's batches
    std::atomic<uint64_t> chunks_to_cpu{0};     // a GPU worker's chunks left to the CPU decoders
    // A GPU worker: the long members it left in its chunks to the CPU
    // decoders; the CPU decoders: those they inflated.
    std::atomic<uint64_t> member_holes{0};
    std::atomic<uint64_t> member_hole_text_bytes{0};
    // The CPU decoders: chunks whose holes did not inflate (a member header
    // that was bytes inside compressed data, or damage), decoded again
    // whole, so counted by a GPU worker and here.
    std::atomic<uint64_t> chunks_decoded_again{0};
    // A GPU worker: stream pieces it searched (among `chunks`), and those it
    // left to the CPU decoders' search.
    std::atomic<uint64_t> stream_pieces{0}, stream_pieces_to_cpu{0};
    // A GPU worker's time by step, summed over its batches: filling a batch
    // (host), the device's copy in, kernel and copy out (CUDA events), and
    // the whole run() (the device steps, then the text copied out).
    std::atomic<uint64_t> take_ns{0}, run_ns{0}, copy_in_ns{0}, kernel_ns{0}, copy_out_ns{0};
    std::atomic<uint64_t> wait_cpu_ns{0};  // of run: the CPU time its thread spent polling for the GPU
    // Making its inflater (the device's buffers and page-locked host
    // buffers), on its thread while the graph starts.
    std::atomic<uint64_t> set_up_ns{0};
    nlohmann::json gpu_seconds() const {
        const auto s = [](const std::atomic<uint64_t>& ns) { return static_cast<double>(ns.load()) * 1e-9; };
        return {{"set_up", s(set_up_ns)},
                {"fill_batch", s(take_ns)},
                {"run", s(run_ns)},
                {"device_copy_in", s(copy_in_ns)},
                {"device_kernel", s(kernel_ns)},
                {"device_copy_out", s(copy_out_ns)},
                {"wait_cpu", s(wait_cpu_ns)}};
    }

    void add(uint64_t chunk_members, uint64_t compressed, uint64_t text) {
        ++chunks;
        members += chunk_members;
        compressed_bytes += compressed;
        text_bytes += text;
    }
    nlohmann::json to_json() const {
        return {{"chunks", chunks.load()},
                {"members", members.load()},
                {"compressed_bytes", compressed_bytes.load()},
                {"text_bytes", text_bytes.load()},
                {"member_holes", member_holes.load()},
                {"member_hole_text_bytes", member_hole_text_bytes.load()},
                {"chunks_decoded_again", chunks_decoded_again.load()},
                {"busy_seconds", static_cast<double>(busy_ns.load()) * 1e-9}};
    }
};

// The chunk decoders take the chunk that comes first in the collection, not
// the one queued first: a chunk back from a GPU batch (its long members left
// as holes, or not inflated) is older than the chunks routed to the CPU while
// it was away, and the frame node's docid step passes nothing of a later file
// on until it is decoded (a priority_queue_node sends its greatest first).
struct LaterInCollection {
    bool operator()(const GzipChunkPtr& a, const GzipChunkPtr& b) const {
        return std::pair{a->file_ordinal, a->index} > std::pair{b->file_ordinal, b->index};
    }
};

uint64_t compressed_bytes_of(const GzipChunk& chunk) {
    if (chunk.stream) return chunk.end - chunk.start;  // a piece of its first block
    uint64_t bytes = 0;
    for (size_t t = 0; t < chunk.blocks.size(); ++t) {
        const size_t from = t == 0 ? chunk.start : 0;
        const size_t to = t + 1 == chunk.blocks.size() ? chunk.end : chunk.blocks[t]->bytes.size();
        bytes += to - from;
    }
    return bytes;
}

// A file's compressed stream must be decoded in order, but different files
// are independent, so `count` workers each decode whole files: a serial
// router restores the read order and hands file f to worker f % count; each
// worker decodes plain gzip files itself with zlib (GzipStream: CRC-32 and
// length checked, no extra thread) and everything else with its
// StreamingDecompressor (libarchive, whose decoder runs on its own thread, so
// reading the next block overlaps decoding this one). The frame
// node puts each file's blocks back in order by file_block, and its docid
// step the files' documents in collection order (messages.hpp).
//
// No deadlock with few tokens: blocks are read in file order, so while any
// block of file f is unread, no later file holds a token, and once all of
// f's blocks are read they sit, already leased, in its worker's queue ahead
// of every later file's. Either way file f can finish, and the frame node
// frames f and, f being next, passes its batches on, which releases the
// tokens of f's text.
//
// With split_gzip, a plain gzip file of several blocks whose first block holds
// a second member header is not given to one worker: the router cuts it into
// chunks at member headers, any of `count` chunk decoders decodes each, and a
// serial reassembler puts the file's text back in order (split_gzip.hpp), so
// one large file is decoded on several cores. A file of one gzip stream has
// nothing to cut at: it goes to a worker as above (were it split, a stream
// longer than a chunk may hold would be decoded in order on the reassembler's
// one thread, every such file after another). A chunk holds the tokens of its
// blocks; the router holds at most a quarter of the tokens for the chunk it is
// gathering, so reading goes on.
//
// With "gpus" (docs/PIPELINE.md, "GPU inflate"), the GPU workers come first
// once one has made its inflater (0.17-0.25 s on an H200 host, while the
// first blocks are read and decoded: a chunk waiting for it would hold back
// every later chunk of the collection at the frame node's docid step, and
// the build's start with them): the router sends a chunk that may hold
// members (no member longer than a read block) to the GPUs' queue while the
// GPU workers hold less than a batch each
// (and a quarter of the tokens), and to the chunk decoders' queue otherwise,
// so the split between CPU and GPU follows their speeds. A limiter of 1 hands
// a free GPU worker the next chunk, and its thread (an async_node's
// AsyncWorker, so no flow-graph thread waits on the device) adds every chunk
// already waiting, without waiting for more, to one batch of whole members for
// its GpuInflater (chunk_batch.hpp). Members longer than the GPU's cap are
// left as holes for the chunk decoders (fill_member_holes); a chunk the GPU
// cannot take, or whose members do not all inflate cleanly, goes to the chunk
// decoders whole, whose decode_chunk gives the CPU's text or error. No
// deadlock: a worker waits for nothing but its own device, every chunk still
// holds its blocks' tokens, and every chunk reaches the reassembler from one
// decoder or the other.
class DecompressNode final : public Stage<RawBlock, TextBlock> {
public:
    DecompressNode(RunState& state, size_t text_block_bytes, unsigned count, bool split_gzip, StreamSplit split_streams,
                   size_t stream_piece_bytes, InflateGpuChoice gpus, std::shared_ptr<const GpuInflateBackend> backend,
                   const GpuInflateSettings& gpu_settings)
        : state_(state),
          text_block_bytes_(text_block_bytes),
          // The text of one read block fills several text blocks, all under
          // its token (gzip'd HTML: about four at the default sizes).
          text_buffers_(std::make_shared<BufferPool<std::string>>(size_t{4} * state.tokens.capacity())),
          output_(state.graph),
          router_(state.graph, flow::serial, [this](const In& block, RouterBody::output_ports_type& ports) {
              run_guarded(metrics_, [&] {
                  in_order_.push(block->sequence, block, [&](const In& next) { route(next, std::get<0>(ports)); });
              });
          }),
          split_gzip_(split_gzip),
          chunker_(std::max<size_t>(1, state.tokens.capacity() / 4)),
          split_streams_(split_streams),
          stream_chunker_(gpu_settings.stream_pieces && !gpus.ordinals.empty() ? gpu_settings.stream_piece_bytes
                                                                                 : stream_piece_bytes),
          compressed_bytes_(collection_compressed_bytes(state.files)),
          // Searched on the GPUs, a batch's pieces take their symbol
          // buffers at once: keep that many more (small pieces: some 300 KB each).
          piece_symbols_(std::make_shared<PieceSymbolPool>(
              size_t{4} * count + (gpu_settings.stream_pieces && !gpus.ordinals.empty()
                                       ? 2 * piece_batch_limits(gpu_settings.batch_bytes, gpu_settings.stream_piece_bytes).pieces
                                       : 0))),
          gpus_(std::move(gpus)),
          backend_(std::move(backend)),
          gpu_batch_bytes_(gpu_settings.batch_bytes),
          gpu_member_bytes_(gpu_settings.member_bytes),
          resident_batches_(gpu_settings.resident_batches),
          parse_gpus_(gpu_settings.parse_gpus),
          gpu_pieces_(gpu_settings.stream_pieces && !gpus_.ordinals.empty()),
          gpu_piece_bytes_(gpu_settings.stream_piece_bytes),
          chunk_queue_(state.graph),
          chunk_decoders_(chunk_decoder_count(state, count, split_gzip, split_streams, compressed_bytes_)),
          chunk_decoder_(state.graph, chunk_decoders_,
                         [this](const GzipChunkPtr& chunk) {
                             auto busy = metrics_.busy_scope();
                             NodeMetrics::BusyScope busy_cpu(cpu_counts_.busy_ns);
                             if (chunk->stream) {
                                 const bool search = chunk->stream->step == PieceStep::search;
                                 work_on_stream_piece(*chunk, text_block_bytes_, text_buffers_, *piece_symbols_);
                                 if (search) {
                                     ++chunks_;
                                     cpu_counts_.add(0, chunk->end - chunk->start,
                                                     chunk->stream->piece.symbols.text_size());
                                 }
                                 return chunk;
                             }
                             if (!chunk->holes.empty()) {
                                 if (fill_holes(*chunk)) return chunk;
                             }
                             decode_chunk(*chunk, state_.files.at(chunk->file_ordinal), text_block_bytes_,
                                          text_buffers_);
                             ++chunks_;
                             if (!chunk->decoded) {
                                 ++chunks_left_in_order_;
                             } else {
                                 uint64_t text = 0;
                                 for (const TextBlock& block : chunk->text) text += block.bytes.size();
                                 cpu_counts_.add(chunk->members, compressed_bytes_of(*chunk), text);
                             }
                             return chunk;
                         }),
          reassembler_(text_block_bytes, text_buffers_, piece_symbols_),
          reassembler_node_(state.graph, flow::serial,
                            [this](const GzipChunkPtr& chunk, ReassemblerBody::output_ports_type& ports) {
                                run_guarded(metrics_, [&] {
                                    auto busy = metrics_.busy_scope();
                                    (chunk->via_gpu ? gpu_latency_ : cpu_latency_)
                                        .add(chunk->routed_at, std::chrono::steady_clock::now());
                                    reassembler_.push(
                                        chunk, state_.files.at(chunk->file_ordinal),
                                        [&](TextBlock&& text) {
                                            metrics_.bytes_out += text.bytes.size();
                                            ++metrics_.items_out;
                                            std::get<0>(ports).try_put(BufferPool<std::string>::share(
                                                text_buffers_, std::move(text), &TextBlock::bytes));
                                        },
                                        [&](GzipChunkPtr piece) { chunk_queue_.try_put(std::move(piece)); });
                                });
                            }) {
        for (unsigned i = 0; i < count; ++i) workers_.push_back(std::make_unique<Worker>(*this, text_block_bytes));
        flow::make_edge(chunk_queue_, chunk_decoder_);
        flow::make_edge(chunk_decoder_, reassembler_node_);
        if (!gpus_.ordinals.empty()) {
            gpu_chunks_ = std::make_unique<flow::queue_node<GzipChunkPtr>>(state.graph);
            // What the GPU workers hold (waiting or in their batches): a batch
            // per worker, and at most a quarter of the tokens, so that chunks
            // waiting for a GPU never starve the rest of the pipeline.
            const size_t workers = gpus_.ordinals.size() * gpu_settings.workers_per_gpu;
            const uint64_t token_bytes = uint64_t{state.tokens.capacity()} * state.config.memory.read_block_bytes;
            gpu_held_limit_ = std::min<uint64_t>(workers * gpu_batch_bytes_, token_bytes / 4);
            for (const int ordinal : gpus_.ordinals)
                for (unsigned w = 0; w < gpu_settings.workers_per_gpu; ++w) add_gpu_worker(ordinal);
        }
        flow::make_edge(flow::output_port<0>(reassembler_node_), output_);
        flow::make_edge(flow::output_port<0>(router_), output_);
        for (auto& worker : workers_) flow::make_edge(flow::output_port<0>(worker->node), output_);
        metrics_.concurrency = std::max(count, chunk_decoders_) + static_cast<unsigned>(gpu_workers_.size());
        count_ = count;
    }

    ~DecompressNode() override {
        // The GPU workers' threads stop first, while the nodes their jobs report to exist.
        for (auto& worker : gpu_workers_) worker->thread.reset();
    }

    flow::receiver<In>& input_port() override { return router_; }

    void finish(RunState& state) override {
        if (!split_gzip_) return;
        nlohmann::json cpu = cpu_counts_.to_json();
        cpu["kind"] = "cpu";
        cpu["count"] = chunk_decoders_;
        nlohmann::json decoders = nlohmann::json::array({std::move(cpu)});
        const MemberBatchLimits limits = member_batch_limits(gpu_batch_bytes_);
        for (const auto& worker : gpu_workers_) {
            nlohmann::json gpu = worker->counts.to_json();
            gpu["kind"] = "gpu";
            gpu["device"] = "gpu:" + std::to_string(worker->ordinal);
            gpu["batches"] = worker->counts.batches.load();
            gpu["chunks_to_cpu"] = worker->counts.chunks_to_cpu.load();
            gpu["batch_input_bytes"] = limits.input_bytes;
            gpu["batch_output_bytes"] = limits.output_bytes;
            gpu["batch_members"] = limits.members;
            gpu["seconds"] = worker->counts.gpu_seconds();
            if (worker->inflater) {
                // Batches whose text stayed on the device for the parsers there, and those that found no buffer free.
                gpu["batches_text_on_device"] = worker->inflater->resident_batches();
                gpu["batches_no_device_buffer"] = worker->inflater->resident_misses();
                gpu["text_device_bytes"] = worker->inflater->resident_device_bytes();  // their buffers, at the end
            }
            if (gpu_pieces_) {
                gpu["stream_pieces"] = worker->counts.stream_pieces.load();
                gpu["stream_pieces_to_cpu"] = worker->counts.stream_pieces_to_cpu.load();
            }
            decoders.push_back(std::move(gpu));
        }
        nlohmann::json section = {{"files_split", files_split_},
                                  {"stream_files_split", stream_files_split_},
                                  {"stream_pieces_decoded_again", reassembler_.pieces_redone()},
                                  {"stream_piece_text_blocks_joined", reassembler_.small_blocks_joined()},
                                  {"stream_files_decoded_again", reassembler_.stream_files_decoded_again()},
                                  {"stream_files_continued_after_a_member", reassembler_.stream_files_continued()},
                                  {"chunks", chunks_.load()},
                                  {"chunks_not_decoded_alone", chunks_left_in_order_.load()},
                                  {"files_decoded_in_order_from_a_chunk", reassembler_.files_in_order()},
                                  {"gpus", gpus_.setting},
                                  {"gpus_reason", gpus_.reason},
                                  {"decoders", std::move(decoders)},
                                  {"chunk_seconds", {{"cpu", cpu_latency_.to_json()}, {"gpu", gpu_latency_.to_json()}}}};
        if (!gpu_workers_.empty()) {
            section["gpu_backend"] = backend_->name;
            section["chunks_before_gpus_ready"] = chunks_before_gpus_ready_;
        }
        state.add_report_section("split_gzip", std::move(section));
        // The graph is done with the GPUs: their page-locked buffers and
        // device memory go on the workers' threads while the build's last
        // steps run (freeing them takes a noticeable time); the node's
        // destructor waits for that.
        for (auto& worker : gpu_workers_) {
            GpuWorker* const w = worker.get();
            w->thread->submit([w] {
                w->batch.reset();
                w->inflater.reset();
                w->pieces.reset();
                w->piece_decoder.reset();
            });
        }
    }
    flow::sender<Out>& output_port() override { return output_; }

private:
    struct Worker {
        Worker(DecompressNode& owner, size_t text_block_bytes)
            : decompressor(text_block_bytes),
              node(owner.state_.graph, flow::serial, [this, &owner](const Routed& routed, WorkerBody::output_ports_type& ports) {
                  run_guarded(owner.metrics_, [&] {
                      in_order.push(routed.sequence, routed.block,
                                    [&](const In& next) { owner.decode(*this, next, std::get<0>(ports)); });
                  });
              }) {}

        StreamingDecompressor decompressor;
        std::optional<GzipStream> gzip;            // the current file's, when zlib decodes it
        std::optional<uint32_t> failed_ordinal;    // a zlib-decoded file that failed: its rest is ignored
        InOrder<In> in_order;        // by Routed::sequence; used on this worker's thread
        uint64_t next_routed = 0;    // used on the router's thread
        uint64_t file_block = 0;     // of the next TextBlock of the current file
        WorkerBody node;
    };

    template <class Port>
    void route(const In& block, Port& out) {
        ++metrics_.items_in;
        metrics_.bytes_in += block->bytes.size();
        if (block->end_of_input) {
            // Keyed after the last file: the frame takes it once every file ended.
            auto end = std::make_shared<TextBlock>();
            end->end_of_input = true;
            end->file_ordinal = static_cast<uint32_t>(state_.files.size());
            end->file_block = 0;
            end->file_end = true;
            end->lease = block->lease;
            ++metrics_.items_out;
            out.try_put(std::move(end));
            return;
        }
        // Split where the first block shows a second member: a file of one
        // gzip stream (ClueWeb-style) cannot be cut, and streams through one
        // worker block by block, files side by side.
        if (block->first && split_gzip_ && !block->last &&
            gzip_direct(std::string_view(block->bytes.data(), block->bytes.size()), false) &&
            find_gzip_member_header(block->bytes.data(), block->bytes.size(), 1))
            split_file_ = block->file_ordinal, ++files_split_;
        else if (block->first && split_gzip_ && !block->last && split_stream(state_.files.at(block->file_ordinal)) &&
                 gzip_direct(std::string_view(block->bytes.data(), block->bytes.size()), false))
            stream_file_ = block->file_ordinal, ++stream_files_split_;
        if (stream_file_ == block->file_ordinal) {
            stream_chunker_.push(block, [&](GzipChunkPtr chunk) { send_chunk(std::move(chunk)); });
            if (block->last) stream_file_.reset();
            return;
        }
        if (split_file_ == block->file_ordinal) {
            chunker_.push(block, [&](GzipChunkPtr chunk) { send_chunk(std::move(chunk)); });
            if (block->last) split_file_.reset();
            return;
        }
        Worker& worker = *workers_[block->file_ordinal % workers_.size()];
        worker.node.try_put(Routed{worker.next_routed++, block});
    }

    // Whether a file of one gzip stream is cut into pieces for several
    // workers ("split_gzip_streams"). Its pieces cost the workers about
    // three times the core-seconds igzip takes for the same text in one
    // worker (docs/PERFORMANCE.md, "Large gzip files"), so "auto" cuts only
    // a file of more than three times a worker's share of the collection,
    // which one worker would leave the others waiting for; never with one worker.
    bool split_stream(const InputFile& file) const {
        if (split_streams_ == StreamSplit::off) return false;
        if (split_streams_ == StreamSplit::on) return file.size_bytes > 0;
        // Searched on the GPUs, a piece costs the cores only its resolving:
        // "auto" cuts every file once a GPU worker is ready (before, its
        // pieces would be searched on the cores, which small pieces cost
        // more than one worker decoding the file).
        if (gpu_pieces_ && (backend_->chunks_wait_for_set_up || gpus_ready_.load() > 0)) return file.size_bytes > 0;
        return over_three_shares(file, count_, compressed_bytes_);
    }
    static bool over_three_shares(const InputFile& file, unsigned count, uint64_t collection_bytes) {
        return count > 1 && file.size_bytes > 0 && file.size_bytes * count > 3 * collection_bytes;
    }
    static uint64_t collection_compressed_bytes(const std::vector<InputFile>& files) {
        uint64_t bytes = 0;
        for (const InputFile& file : files) bytes += file.size_bytes;
        return bytes;
    }

    // The chunk decoders: `count`, or half as many again where GPUs parse
    // and a file holds over three times a worker's share of the collection
    // (what "auto" cuts into pieces when it is one stream). Its pieces cost
    // about three times what one worker would spend on it, and the cores
    // CPU parsers would take are free: on 16 cores + a GPU, 12 chunk
    // decoders built two one-stream files 1.24-1.29x faster than 8; CPU
    // only, where the parsers need those cores, 0.96x (docs/PERFORMANCE.md,
    // "Large gzip files"). Many files keep `count`.
    static unsigned chunk_decoder_count(const RunState& state, unsigned count, bool split_gzip, StreamSplit streams,
                                        uint64_t collection_bytes) {
        if (!split_gzip || streams == StreamSplit::off) return count;
        if (!state.plan.parsing || state.plan.parsing->gpu_ordinals().empty()) return count;
        for (const InputFile& file : state.files)
            if (over_three_shares(file, count, collection_bytes)) return count + count / 2;
        return count;
    }

    // Router side: a chunk to the GPUs' queue or the chunk decoders'. One of
    // more than two blocks holds a member longer than a block, which no GPU
    // batch takes; a stream piece goes to the GPUs for its search (not the
    // file's first, which starts at the gzip header) where they search
    // pieces; until a GPU worker has made its inflater, the chunk decoders
    // take every chunk.
    void send_chunk(GzipChunkPtr chunk) {
        chunk->routed_at = std::chrono::steady_clock::now();
        const bool for_gpus = chunk->stream ? gpu_pieces_ && !chunk->stream->first
                                            : chunk->decode && chunk->blocks.size() <= 2;
        if (gpu_chunks_ && for_gpus && chunk->stream) {
            // A piece waits for the GPUs: searched on a core, a piece this
            // small costs more than one worker decoding its file.
            gpu_held_bytes_ += compressed_bytes_of(*chunk);
            gpu_chunks_->try_put(std::move(chunk));
            return;
        }
        if (gpu_chunks_ && for_gpus) {
            if (!backend_->chunks_wait_for_set_up && gpus_ready_.load() == 0) {
                ++chunks_before_gpus_ready_;
            } else if (gpu_held_bytes_.load() < gpu_held_limit_) {
                gpu_held_bytes_ += compressed_bytes_of(*chunk);
                gpu_chunks_->try_put(std::move(chunk));
                return;
            }
        }
        chunk_queue_.try_put(std::move(chunk));
    }

    // A chunk decoder: the long members a GPU batch left in `chunk`. False,
    // the chunk's text given back, where one does not inflate cleanly.
    bool fill_holes(GzipChunk& chunk) {
        const uint64_t holes = chunk.holes.size();
        uint64_t hole_text = 0;
        for (const ChunkMemberHole& hole : chunk.holes) hole_text += hole.text_size;
        if (fill_member_holes(chunk, text_block_bytes_)) {
            // The chunk is the GPU worker's, its long members the CPU's.
            cpu_counts_.members += holes;
            cpu_counts_.text_bytes += hole_text;
            cpu_counts_.member_holes += holes;
            cpu_counts_.member_hole_text_bytes += hole_text;
            ++chunks_;
            return true;
        }
        for (TextBlock& text : chunk.text) text_buffers_->give_back(std::move(text.bytes));
        chunk.text.clear();
        chunk.holes.clear();
        ++cpu_counts_.chunks_decoded_again;
        return false;
    }

    template <class Port>
    void decode(Worker& worker, const In& block, Port& out) {
        auto busy = metrics_.busy_scope();
        const InputFile& file = state_.files.at(block->file_ordinal);
        if (block->first) worker.file_block = 0;
        // Whether this push's text comes from GzipStream, whose blocks' bytes
        // are taken from text_buffers_ and go back there.
        bool pooled = false;
        const auto send = [&](TextBlock&& text) {
            text.file_block = worker.file_block++;
            metrics_.bytes_out += text.bytes.size();
            ++metrics_.items_out;
            if (pooled) {
                out.try_put(BufferPool<std::string>::share(text_buffers_, std::move(text), &TextBlock::bytes));
            } else {
                out.try_put(std::make_shared<const TextBlock>(std::move(text)));
            }
        };
        // Which text block is the file's last is known only after its last
        // raw block is decoded, so one is held back, but only within this
        // push: holding its lease until the next push could starve the read
        // node of the token that next block needs.
        std::optional<TextBlock> pending;
        const auto hold = [&](TextBlock&& text) {
            if (pending) send(std::move(*pending));
            pending = std::move(text);
        };
        if (block->first) {
            if (worker.gzip && !worker.gzip->finished()) {
                const std::string unfinished = state_.files.at(worker.gzip->file_ordinal()).path;
                worker.gzip.reset();
                throw Error("file started before " + unfinished + " got its last block",
                            ErrorContext{.node = "decompress", .file = file.path, .record = {}, .byte_offset = {}});
            }
            worker.gzip.reset();
            worker.failed_ordinal.reset();
            const std::string_view bytes(block->bytes.data(), block->bytes.size());
            if (gzip_direct(bytes, block->last)) worker.gzip.emplace(file, text_block_bytes_, text_buffers_);
        }
        pooled = worker.gzip.has_value() && worker.failed_ordinal != block->file_ordinal;
        if (worker.failed_ordinal == block->file_ordinal) {
            // The rest of a file that failed: nothing to decode.
        } else if (worker.gzip) {
            // Decoded here, on this worker's thread; each block the lease of
            // the raw block it came out of.
            try {
                worker.gzip->feed(std::string_view(block->bytes.data(), block->bytes.size()), block->last,
                                  [&](TextBlock&& text) {
                                      text.lease = block->lease;
                                      hold(std::move(text));
                                  });
            } catch (...) {
                worker.gzip.reset();
                worker.failed_ordinal = block->file_ordinal;
                throw;
            }
            if (block->last) worker.gzip.reset();
        } else {
            worker.decompressor.push(block, file, hold);
        }
        if (block->last) {
            if (!pending) {
                // Nothing left to mark (a file with no entries, or a decoder
                // that ended early): an empty marker ends the file.
                pending.emplace();
                pending->file_ordinal = block->file_ordinal;
                pending->lease = block->lease;
            }
            pending->file_end = true;
        }
        if (pending) send(std::move(*pending));
    }

    // One GPU's worker: its limiter hands it a chunk at a time, its thread
    // inflates batches.
    struct GpuWorker {
        int ordinal = 0;
        ChunkDecoderCounts counts;
        std::unique_ptr<flow::limiter_node<GzipChunkPtr>> limiter;
        std::unique_ptr<GpuInflateBody> node;
        std::unique_ptr<MemberBatchInflater> inflater;  // made and used on `thread` only
        std::unique_ptr<ChunkBatch> batch;              // likewise
        std::unique_ptr<PieceBatchDecoder> piece_decoder;  // with gpu_stream_pieces; likewise
        std::unique_ptr<StreamPieceBatch> pieces;          // likewise
        std::unique_ptr<AsyncWorker> thread;
    };

    void add_gpu_worker(int ordinal) {
        auto worker = std::make_unique<GpuWorker>();
        worker->ordinal = ordinal;
        worker->thread = std::make_unique<AsyncWorker>("invidx-inflate");
        worker->limiter = std::make_unique<flow::limiter_node<GzipChunkPtr>>(state_.graph, 1);
        GpuWorker* const w = worker.get();
        worker->node = std::make_unique<GpuInflateBody>(
            state_.graph, flow::unlimited, [this, w](const GzipChunkPtr& chunk, GpuInflateBody::gateway_type& gateway) {
                gateway.reserve_wait();
                w->thread->submit([this, w, chunk, &gateway]() mutable { inflate_on_gpu(*w, std::move(chunk), gateway); });
            });
        flow::make_edge(*gpu_chunks_, *worker->limiter);
        flow::make_edge(*worker->limiter, *worker->node);
        flow::make_edge(*worker->node, reassembler_node_);
        set_up_on_its_thread(*worker);
        gpu_workers_.push_back(std::move(worker));
    }

    // Each GPU worker makes its inflater (a CUDA context, device and
    // page-locked buffers) on its own thread, while the graph is built and
    // the first blocks are read: submitted here, before the graph runs, it
    // comes before any chunk's job on that thread. The graph waits for it
    // (reserve_wait), so finish() never reads a worker being set up.
    void set_up_on_its_thread(GpuWorker& worker) {
        GpuWorker* const w = &worker;
        state_.graph.reserve_wait();
        w->thread->submit([this, w] {
            try {
                run_guarded(metrics_, [&] {
                    const auto start = std::chrono::steady_clock::now();
                    const bool parses_here =
                        std::find(parse_gpus_.begin(), parse_gpus_.end(), w->ordinal) != parse_gpus_.end();
                    w->inflater = backend_->make_inflater(w->ordinal, member_batch_limits(gpu_batch_bytes_),
                                                          parses_here ? resident_batches_ : 0);
                    w->batch = std::make_unique<ChunkBatch>(*w->inflater, gpu_member_bytes_);
                    w->counts.set_up_ns = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                                    std::chrono::steady_clock::now() - start)
                                                                    .count());
                    ++gpus_ready_;
                    // After the inflater is ready: chunks sent meanwhile wait
                    // on this thread, behind this job.
                    if (gpu_pieces_) {
                        w->piece_decoder = backend_->make_piece_decoder(
                            w->ordinal, piece_batch_limits(gpu_batch_bytes_, gpu_piece_bytes_));
                        w->pieces = std::make_unique<StreamPieceBatch>(*w->piece_decoder);
                    }
                });
            } catch (...) {
                state_.fail(std::current_exception());
            }
            state_.graph.release_wait();
        });
    }

    // On the worker's thread. Whatever happens, the worker takes the next
    // chunk (its limiter is released) and the graph may finish
    // (release_wait); every chunk is let go first: once the graph may
    // finish, the token pool their leases return to may go.
    void inflate_on_gpu(GpuWorker& worker, GzipChunkPtr chunk, GpuInflateBody::gateway_type& gateway) {
        try {
            if (!state_.graph.is_cancelled()) {
                run_guarded(metrics_, [&] {
                    auto busy = metrics_.busy_scope();
                    NodeMetrics::BusyScope busy_gpu(worker.counts.busy_ns);
                    ensure(worker.batch != nullptr, "GPU inflater for gpu:" + std::to_string(worker.ordinal) + " missing");
                    while (chunk) chunk = inflate_batch(worker, std::move(chunk), gateway);
                });
            }
        } catch (...) {
            state_.fail(std::current_exception());
        }
        chunk.reset();
        if (worker.batch) worker.batch->clear();
        if (worker.pieces) worker.pieces->clear();
        worker.limiter->decrementer().try_put(flow::continue_msg());
        gateway.release_wait();
    }

    // One batch: `first` and the chunks already waiting, as many as fit.
    // Returns the chunk that did not fit, to start the next batch with.
    GzipChunkPtr inflate_batch(GpuWorker& worker, GzipChunkPtr first, GpuInflateBody::gateway_type& gateway) {
        GzipChunkPtr left_over;
        GzipChunkPtr chunk = std::move(first);
        const auto nanoseconds_since = [](std::chrono::steady_clock::time_point from) {
            return static_cast<uint64_t>(
                std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - from).count());
        };
        const auto fill_start = std::chrono::steady_clock::now();
        while (chunk) {
            if (chunk->stream) {
                // A stream piece: into the worker's piece batch.
                const StreamPieceBatch::Taken taken =
                    worker.pieces ? worker.pieces->take(chunk) : StreamPieceBatch::Taken::no;
                if (taken == StreamPieceBatch::Taken::full) {
                    left_over = std::move(chunk);
                    break;
                }
                if (taken == StreamPieceBatch::Taken::no) {
                    ++worker.counts.stream_pieces_to_cpu;
                    hand_on(chunk, chunk_queue_);
                }
            } else {
                const ChunkBatch::Taken taken = worker.batch->take(chunk, state_.files.at(chunk->file_ordinal));
                if (taken == ChunkBatch::Taken::full) {
                    left_over = std::move(chunk);
                    break;
                }
                if (taken == ChunkBatch::Taken::no) {
                    ++worker.counts.chunks_to_cpu;
                    hand_on(chunk, chunk_queue_);
                }
            }
            chunk.reset();
            if (!gpu_chunks_->try_get(chunk)) break;  // none waiting: inflate what there is
        }
        worker.counts.take_ns += nanoseconds_since(fill_start);
        if (worker.pieces && !worker.pieces->empty()) search_pieces(worker, gateway);
        if (worker.batch->empty()) return left_over;
        ++worker.counts.batches;
        const auto run_start = std::chrono::steady_clock::now();
        const uint64_t wait_cpu_at_start = gpu_wait_cpu_ns();
        std::vector<ChunkBatch::Done> batch_done = worker.batch->run(text_block_bytes_, text_buffers_);
        worker.counts.run_ns += nanoseconds_since(run_start);
        worker.counts.wait_cpu_ns += gpu_wait_cpu_ns() - wait_cpu_at_start;
        const GpuInflater::Timings device = worker.inflater->last_device_seconds();
        worker.counts.copy_in_ns += static_cast<uint64_t>(device.copy_in * 1e9);
        worker.counts.kernel_ns += static_cast<uint64_t>(device.kernel * 1e9);
        worker.counts.copy_out_ns += static_cast<uint64_t>(device.copy_out * 1e9);
        for (ChunkBatch::Done& done : batch_done) {
            if (!done.inflated) {
                ++worker.counts.chunks_to_cpu;
                hand_on(done.chunk, chunk_queue_);
                continue;
            }
            done.chunk->via_gpu = true;
            worker.counts.add(done.members - done.holes, done.compressed_bytes, done.text_bytes - done.hole_text_bytes);
            worker.counts.member_holes += done.holes;
            worker.counts.member_hole_text_bytes += done.hole_text_bytes;
            if (done.holes > 0) {
                hand_on(done.chunk, chunk_queue_);  // a chunk decoder fills the holes
            } else {
                ++chunks_;
                hand_on(done.chunk, gateway);
            }
        }
        return left_over;
    }

    // The worker's batch of stream pieces: each decoded one on to the
    // reassembler as a CPU worker's search would send it, the others to the
    // CPU decoders for their search.
    void search_pieces(GpuWorker& worker, GpuInflateBody::gateway_type& gateway) {
        ++worker.counts.batches;
        const auto run_start = std::chrono::steady_clock::now();
        const uint64_t wait_cpu_at_start = gpu_wait_cpu_ns();
        std::vector<StreamPieceBatch::Done> done = worker.pieces->run(*piece_symbols_);
        worker.counts.run_ns += static_cast<uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - run_start).count());
        worker.counts.wait_cpu_ns += gpu_wait_cpu_ns() - wait_cpu_at_start;
        const GpuPieceDecoder::Timings device = worker.piece_decoder->last_device_seconds();
        worker.counts.copy_in_ns += static_cast<uint64_t>(device.copy_in * 1e9);
        worker.counts.kernel_ns += static_cast<uint64_t>(device.kernel * 1e9);
        worker.counts.copy_out_ns += static_cast<uint64_t>(device.copy_out * 1e9);
        for (StreamPieceBatch::Done& d : done) {
            if (!d.decoded) {
                ++worker.counts.stream_pieces_to_cpu;
                hand_on(d.chunk, chunk_queue_);
                continue;
            }
            d.chunk->via_gpu = true;
            ++worker.counts.stream_pieces;
            worker.counts.add(0, d.compressed_bytes, d.symbols);
            ++chunks_;
            hand_on(d.chunk, gateway);
        }
    }

    // A chunk leaves its GPU worker: it no longer counts against what the
    // GPUs may hold (counted before it goes, while its blocks are there).
    template <class Receiver>
    void hand_on(const GzipChunkPtr& chunk, Receiver& to) {
        gpu_held_bytes_ -= compressed_bytes_of(*chunk);
        to.try_put(chunk);
    }

    RunState& state_;
    const size_t text_block_bytes_;
    std::shared_ptr<BufferPool<std::string>> text_buffers_;  // of GzipStream's blocks; at most four per token kept
    flow::broadcast_node<Out> output_;
    std::vector<std::unique_ptr<Worker>> workers_;
    InOrder<In> in_order_;  // by RawBlock::sequence; used on the router's thread
    RouterBody router_;
    const bool split_gzip_;
    std::optional<uint32_t> split_file_;  // the file being chunked (router's thread)
    GzipChunker chunker_;                 // router's thread
    const StreamSplit split_streams_;
    GzipStreamChunker stream_chunker_;    // router's thread
    std::optional<uint32_t> stream_file_; // the one-stream file being cut into pieces (router's thread)
    uint64_t stream_files_split_ = 0;     // router's thread
    const uint64_t compressed_bytes_;     // of every input file
    std::shared_ptr<PieceSymbolPool> piece_symbols_;
    const InflateGpuChoice gpus_;
    const std::shared_ptr<const GpuInflateBackend> backend_;
    const size_t gpu_batch_bytes_;
    const uint32_t gpu_member_bytes_;  // a chunk with a longer member goes to the CPU
    const size_t resident_batches_;    // a GPU worker's batches kept in device memory at once, where it parses
    const std::vector<int> parse_gpus_;
    const bool gpu_pieces_;            // the GPU workers search stream pieces ("gpu_stream_pieces")
    const size_t gpu_piece_bytes_;
    unsigned count_ = 1;                  // CPU chunk decoders
    std::atomic<unsigned> gpus_ready_{0};    // GPU workers whose inflater is made
    uint64_t chunks_before_gpus_ready_ = 0;  // sent to the CPU until then (router's thread)
    flow::priority_queue_node<GzipChunkPtr, LaterInCollection> chunk_queue_;  // the chunk decoders', earliest first
    const unsigned chunk_decoders_;  // the chunk decoder's concurrency
    ChunkDecoderBody chunk_decoder_;
    std::unique_ptr<flow::queue_node<GzipChunkPtr>> gpu_chunks_;  // with GPU workers: theirs
    std::atomic<uint64_t> gpu_held_bytes_{0};  // compressed, in gpu_chunks_ or a GPU worker
    uint64_t gpu_held_limit_ = 0;              // of gpu_held_bytes_, past which chunks go to the CPU
    ChunkDecoderCounts cpu_counts_;
    std::vector<std::unique_ptr<GpuWorker>> gpu_workers_;
    GzipReassembler reassembler_;         // reassembler_node_'s thread
    ChunkLatency cpu_latency_;            // likewise: chunks the GPUs did not inflate
    ChunkLatency gpu_latency_;            // likewise: chunks a GPU batch inflated
    uint64_t files_split_ = 0;            // router's thread
    std::atomic<uint64_t> chunks_{0};
    std::atomic<uint64_t> chunks_left_in_order_{0};  // undecoded, or not decoded alone
    ReassemblerBody reassembler_node_;
};

}  // namespace

void resolve_decompress_node(NodeOptions& options, const PipelineConfig&, BuildPlan& plan) {
    // Default "auto": one worker per two cores. Decoders wait on their files'
    // order as much as they work, so more of them than a core's share pays
    // once enough tokens keep several files going; more than that only takes
    // cores from the other nodes (docs/PERFORMANCE.md, "Pipeline defaults").
    const unsigned automatic = std::max(1u, plan.machine.cores / 2);
    settle_count(options, plan, automatic, automatic, "one per two cores");
}

std::unique_ptr<Node> make_decompress_node(NodeOptions& options, RunState& state) {
    const uint64_t text_block_bytes = options.unsigned_integer("text_block_bytes", state.plan.text_block_bytes);
    if (text_block_bytes == 0 || text_block_bytes > (1ull << 30))
        throw ConfigError(options.pointer("text_block_bytes"), "must be between 1 and 2^30");
    const unsigned count = state.plan.count_of(options);
    // A plain gzip file of several read blocks decoded on several cores
    // (split_gzip.hpp), on by default: decoded by one worker, a large file
    // goes at one core's pace and every later file's text waits behind it,
    // so the build's rate would follow the file size (docs/PERFORMANCE.md,
    // "Large gzip files").
    const bool split_gzip = options.boolean("split_gzip", true);
    // GPU inflate (docs/PIPELINE.md, "GPU inflate"): "auto" follows the
    // parse node, whose GPUs are there for the build anyway.
    const std::shared_ptr<const GpuInflateBackend> backend = gpu_inflate_backend();
    const std::vector<int> parse_gpus = state.plan.parsing ? state.plan.parsing->gpu_ordinals() : std::vector<int>{};
    InflateGpuChoice gpus =
        choose_inflate_gpus(options.raw("gpus"), options.pointer("gpus"), backend->inventory, parse_gpus, split_gzip);
    GpuInflateSettings gpu_settings;
    gpu_settings.batch_bytes = options.byte_size("gpu_batch_bytes", kDefaultGpuBatchBytes);
    // One warp decodes a member, so a batch lasts as long as its longest
    // member: longer ones are left to the CPU workers, the rest of their
    // chunks stay in the batch.
    const uint64_t gpu_member_bytes = options.byte_size("gpu_member_bytes", kMaxBatchMemberTextBytes);
    if (gpu_member_bytes == 0 || gpu_member_bytes > (1ull << 30))
        throw ConfigError(options.pointer("gpu_member_bytes"), "must be between 1 and 2^30");
    gpu_settings.member_bytes = static_cast<uint32_t>(gpu_member_bytes);
    const uint64_t resident = options.unsigned_integer("gpu_resident_batches", kDefaultResidentBatches);
    if (resident > 64) throw ConfigError(options.pointer("gpu_resident_batches"), "must be between 0 and 64");
    gpu_settings.resident_batches = static_cast<size_t>(resident);
    gpu_settings.parse_gpus = parse_gpus;
    // Asked for, text can stay only on a GPU that both inflates and parses:
    // anywhere else the setting would do nothing.
    const bool inflates_where_it_parses = std::any_of(gpus.ordinals.begin(), gpus.ordinals.end(), [&](int ordinal) {
        return std::find(parse_gpus.begin(), parse_gpus.end(), ordinal) != parse_gpus.end();
    });
    if (!options.raw("gpu_resident_batches").is_null() && resident > 0 && !inflates_where_it_parses) {
        throw ConfigError(options.pointer("gpu_resident_batches"),
                          "needs a GPU that both inflates (\"gpus\") and parses (the parse node's \"gpus\"): " +
                              (gpus.ordinals.empty() ? gpus.reason : std::string("none of the inflating GPUs parses")));
    }
    // Two batches in flight a GPU by default (a worker each, with its own
    // thread, stream and buffers), so one batch's copies overlap the other's
    // kernel. One was the default while the GPU parse slots' polling cost
    // more CPU than the second batch saved; since the slots sleep between
    // polls two build 1.01-1.06x one on 16 cores + H200 (docs/performance-log.md);
    // 3 and 4 are no faster.
    const uint64_t in_flight = options.unsigned_integer("gpu_batches_in_flight", gpu_settings.workers_per_gpu);
    if (in_flight == 0 || in_flight > 8)
        throw ConfigError(options.pointer("gpu_batches_in_flight"), "must be between 1 and 8");
    gpu_settings.workers_per_gpu = static_cast<unsigned>(in_flight);
    // A file of one gzip stream cut into pieces for several workers
    // (split_gzip.hpp): "auto" where it is large enough to pay, true for
    // every such file of two read blocks or more, false never.
    const nlohmann::json& streams = options.raw("split_gzip_streams");
    StreamSplit split_streams = StreamSplit::automatic;
    if (streams.is_boolean()) {
        split_streams = streams.get<bool>() ? StreamSplit::on : StreamSplit::off;
    } else if (!streams.is_null() && streams != "auto") {
        throw ConfigError(options.pointer("split_gzip_streams"), "must be \"auto\", true or false");
    }
    if (split_streams == StreamSplit::on && !split_gzip)
        throw ConfigError(options.pointer("split_gzip_streams"), "needs split_gzip");
    const uint64_t stream_piece_bytes = options.byte_size("stream_piece_bytes", kDefaultStreamPieceBytes);
    // The GPU workers search stream pieces too (devices/gpu_stream_pieces.hpp),
    // in pieces of gpu_stream_piece_bytes, and "auto" cuts every one-stream
    // file: false by default (docs/PIPELINE.md, "GPU inflate").
    const nlohmann::json& gpu_pieces = options.raw("gpu_stream_pieces");
    if (!gpu_pieces.is_null() && !gpu_pieces.is_boolean())
        throw ConfigError(options.pointer("gpu_stream_pieces"), "must be true or false");
    gpu_settings.stream_pieces = gpu_pieces.is_boolean() && gpu_pieces.get<bool>();
    if (gpu_settings.stream_pieces && gpus.ordinals.empty())
        throw ConfigError(options.pointer("gpu_stream_pieces"), "needs GPU inflate (\"gpus\"): " + gpus.reason);
    if (gpu_settings.stream_pieces && split_streams == StreamSplit::off)
        throw ConfigError(options.pointer("gpu_stream_pieces"), "needs split_gzip_streams");
    // A piece size for pieces the GPUs do not search would do nothing.
    if (!gpu_settings.stream_pieces && !options.raw("gpu_stream_piece_bytes").is_null())
        throw ConfigError(options.pointer("gpu_stream_piece_bytes"), "needs gpu_stream_pieces true");
    gpu_settings.stream_piece_bytes = options.byte_size("gpu_stream_piece_bytes", kDefaultGpuStreamPieceBytes);
    if (gpu_settings.stream_piece_bytes == 0 || gpu_settings.stream_piece_bytes > (uint64_t{1} << 30))
        throw ConfigError(options.pointer("gpu_stream_piece_bytes"), "must be between 1 and 2^30");
    return std::make_unique<DecompressNode>(state, text_block_bytes, count, split_gzip, split_streams,
                                            stream_piece_bytes, std::move(gpus), backend, gpu_settings);
}

}  // namespace invidx
