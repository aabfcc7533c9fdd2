#include "nodes/read/read_node.hpp"

#include <atomic>
#include <chrono>
#include <optional>

#include "graph/buffer_pool.hpp"
#include "graph/guard.hpp"
#include "graph/token_pool.hpp"
#include "nodes/read/block_reader.hpp"

namespace invidx {
namespace {

namespace flow = oneapi::tbb::flow;
using Message = std::shared_ptr<const RawBlock>;
using Ticket = uint64_t;
using ReaderBody = flow::multifunction_node<Ticket, std::tuple<Message>>;

// input_node -> limiter -> reader. The input_node only hands out tickets: it
// keeps a copy of the last item it produced, and a copy of a block would hold
// that block's token until the next block was made, which (with few tokens)
// could never happen. The reader, after the limiter, does the reading and
// gives each block the lease of its ticket's token.
class ReadNode final : public SourceStage<RawBlock> {
public:
    ReadNode(RunState& state, size_t block_bytes)
        : state_(state),
          block_bytes_(block_bytes),
          buffers_(std::make_shared<BufferPool<std::vector<char>>>(state.tokens.capacity())),
          tickets_(state.graph,
                   [this](oneapi::tbb::flow_control& control) -> Ticket {
                       if (finished_.load()) control.stop();
                       return next_ticket_++;
                   }),
          limiter_(state.graph, state.tokens.capacity()),
          reader_node_(state.graph, flow::serial, [this](const Ticket&, ReaderBody::output_ports_type& ports) {
              run_guarded(metrics_, [&] { read_one(std::get<0>(ports)); });
          }) {
        flow::make_edge(tickets_, limiter_);
        flow::make_edge(limiter_, reader_node_);
        state_.tokens.on_release([this] { limiter_.decrementer().try_put(flow::continue_msg()); });
        metrics_.concurrency = 1;
    }
    ~ReadNode() override { state_.tokens.on_release(nullptr); }

    flow::sender<Message>& output_port() override { return flow::output_port<0>(reader_node_); }
    void start() override { tickets_.activate(); }

private:
    template <class Port>
    void read_one(Port& out) {
        // Every ticket passed the limiter; its token returns with the lease.
        Lease lease = state_.tokens.acquire();
        if (finished_.load()) return;  // a ticket handed out before the end was seen
        // Tickets are always ready, so the time since the last block went
        // out is time spent waiting for a token: the back-pressure of the
        // rest of the graph, reported as this node's wait for output.
        const auto now = std::chrono::steady_clock::now();
        if (last_block_out_) {
            metrics_.wait_output_ns += static_cast<uint64_t>(
                std::chrono::duration_cast<std::chrono::nanoseconds>(now - *last_block_out_).count());
        }
        struct MarkOut {
            std::optional<std::chrono::steady_clock::time_point>& at;
            ~MarkOut() { at = std::chrono::steady_clock::now(); }
        } mark_out{last_block_out_};
        auto busy = metrics_.busy_scope();
        while (true) {
            if (!reader_) {
                if (next_file_ == state_.files.size()) {
                    // The sentinel lets every later node close its last batch and run.
                    auto end = std::make_shared<RawBlock>();
                    end->end_of_input = true;
                    end->sequence = next_sequence_++;
                    end->lease = std::move(lease);
                    finished_ = true;
                    ++metrics_.items_out;
                    out.try_put(std::move(end));
                    return;
                }
                reader_ = std::make_unique<BlockReader>(state_.files[next_file_], block_bytes_);
            }
            // A buffer of an earlier block, already faulted in (and, when
            // full, of the size the reader sets, so not zero-filled again).
            RawBlock block;
            block.bytes = buffers_->take();
            if (reader_->next(block)) {
                if (block.last) {
                    reader_.reset();
                    ++next_file_;
                }
                block.lease = std::move(lease);
                block.sequence = next_sequence_++;
                metrics_.bytes_out += block.bytes.size();
                ++metrics_.items_out;
                state_.bytes_read += block.bytes.size();
                out.try_put(BufferPool<std::vector<char>>::share(buffers_, std::move(block), &RawBlock::bytes));
                return;
            }
            buffers_->give_back(std::move(block.bytes));
            reader_.reset();
            ++next_file_;
        }
    }

    RunState& state_;
    size_t block_bytes_;
    std::shared_ptr<BufferPool<std::vector<char>>> buffers_;  // of the blocks read; at most one per token
    std::unique_ptr<BlockReader> reader_;
    size_t next_file_ = 0;
    std::atomic<bool> finished_{false};
    Ticket next_ticket_ = 0;
    std::optional<std::chrono::steady_clock::time_point> last_block_out_;
    uint64_t next_sequence_ = 0;
    flow::input_node<Ticket> tickets_;
    flow::limiter_node<Ticket> limiter_;
    ReaderBody reader_node_;
};

}  // namespace

std::unique_ptr<Node> make_read_node(NodeOptions& options, RunState& state) {
    return std::make_unique<ReadNode>(state, options.byte_size("block_bytes", state.config.memory.read_block_bytes));
}

}  // namespace invidx
