#include "nodes/decompress/decompress_node.hpp"

#include <algorithm>
#include <atomic>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "graph/buffer_pool.hpp"
#include "graph/guard.hpp"
#include "graph/in_order.hpp"
#include "graph/token_pool.hpp"
#include "invidx/error.hpp"
#include "nodes/decompress/gzip_stream.hpp"
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
// With split_gzip, a plain gzip file of several blocks is not given to one
// worker: the router cuts it into chunks at member headers, any of `count`
// chunk decoders decodes each, and a serial reassembler puts the file's text
// back in order (split_gzip.hpp), so one large file is decoded on several
// cores. A chunk holds the tokens of its blocks; the router holds at most
// a quarter of the tokens for the chunk it is gathering, so reading goes on.
class DecompressNode final : public Stage<RawBlock, TextBlock> {
public:
    DecompressNode(RunState& state, size_t text_block_bytes, unsigned count, bool split_gzip)
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
          chunk_decoder_(state.graph, count,
                         [this](const GzipChunkPtr& chunk) {
                             auto busy = metrics_.busy_scope();
                             decode_chunk(*chunk, state_.files.at(chunk->file_ordinal), text_block_bytes_,
                                          text_buffers_);
                             ++chunks_;
                             if (!chunk->decoded) ++chunks_left_in_order_;
                             return chunk;
                         }),
          reassembler_(text_block_bytes, text_buffers_),
          reassembler_node_(state.graph, flow::serial,
                            [this](const GzipChunkPtr& chunk, ReassemblerBody::output_ports_type& ports) {
                                run_guarded(metrics_, [&] {
                                    auto busy = metrics_.busy_scope();
                                    reassembler_.push(chunk, state_.files.at(chunk->file_ordinal),
                                                      [&](TextBlock&& text) {
                                                          metrics_.bytes_out += text.bytes.size();
                                                          ++metrics_.items_out;
                                                          std::get<0>(ports).try_put(BufferPool<std::string>::share(
                                                              text_buffers_, std::move(text), &TextBlock::bytes));
                                                      });
                                });
                            }) {
        for (unsigned i = 0; i < count; ++i) workers_.push_back(std::make_unique<Worker>(*this, text_block_bytes));
        flow::make_edge(chunk_decoder_, reassembler_node_);
        flow::make_edge(flow::output_port<0>(reassembler_node_), output_);
        flow::make_edge(flow::output_port<0>(router_), output_);
        for (auto& worker : workers_) flow::make_edge(flow::output_port<0>(worker->node), output_);
        metrics_.concurrency = count;
    }

    flow::receiver<In>& input_port() override { return router_; }

    void finish(RunState& state) override {
        if (!split_gzip_) return;
        state.add_report_section("split_gzip", {{"files_split", files_split_},
                                                {"chunks", chunks_.load()},
                                                {"chunks_not_decoded_alone", chunks_left_in_order_.load()},
                                                {"files_decoded_in_order_from_a_chunk", reassembler_.files_in_order()}});
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
        if (block->first && split_gzip_ && !block->last &&
            gzip_direct(std::string_view(block->bytes.data(), block->bytes.size()), false))
            split_file_ = block->file_ordinal, ++files_split_;
        if (split_file_ == block->file_ordinal) {
            chunker_.push(block, [&](GzipChunkPtr chunk) { chunk_decoder_.try_put(std::move(chunk)); });
            if (block->last) split_file_.reset();
            return;
        }
        Worker& worker = *workers_[block->file_ordinal % workers_.size()];
        worker.node.try_put(Routed{worker.next_routed++, block});
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
    flow::function_node<GzipChunkPtr, GzipChunkPtr> chunk_decoder_;
    GzipReassembler reassembler_;         // reassembler_node_'s thread
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
    const uint64_t text_block_bytes = options.unsigned_integer("text_block_bytes", state.config.memory.text_block_bytes);
    if (text_block_bytes == 0 || text_block_bytes > (1ull << 30))
        throw ConfigError(options.pointer("text_block_bytes"), "must be between 1 and 2^30");
    const unsigned count = state.plan.count_of(options);
    // A plain gzip file of several read blocks decoded on several cores
    // (split_gzip.hpp), on by default: decoded by one worker, a large file
    // goes at one core's pace and every later file's text waits behind it,
    // so the build's rate would follow the file size (docs/PERFORMANCE.md,
    // "Large gzip files").
    const bool split_gzip = options.boolean("split_gzip", true);
    return std::make_unique<DecompressNode>(state, text_block_bytes, count, split_gzip);
}

}  // namespace invidx
