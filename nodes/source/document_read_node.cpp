#include "nodes/source/document_read_node.hpp"

#include <atomic>

#include "graph/guard.hpp"
#include "graph/token_pool.hpp"

namespace invidx {
namespace {

namespace flow = oneapi::tbb::flow;
using Message = std::shared_ptr<const RawBlock>;
using Ticket = uint64_t;
using ReaderBody = flow::multifunction_node<Ticket, std::tuple<Message>>;

// input_node -> limiter -> reader, as the file read node (nodes/read): the
// input_node hands out tickets only, the reader takes a token per block.
// The documents are file 0; the block after the last pushed one is an empty
// one marked last (the decoders take that as the file's end), then the
// end-of-input sentinel.
class DocumentReadNode final : public SourceStage<RawBlock> {
public:
    DocumentReadNode(RunState& state, DocumentSource& documents)
        : state_(state),
          documents_(documents),
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
    ~DocumentReadNode() override { state_.tokens.on_release(nullptr); }

    flow::sender<Message>& output_port() override { return flow::output_port<0>(reader_node_); }
    void start() override { tickets_.activate(); }

private:
    template <class Port>
    void read_one(Port& out) {
        Lease lease = state_.tokens.acquire();
        if (finished_.load()) return;
        auto block = std::make_shared<RawBlock>();
        block->lease = std::move(lease);
        block->sequence = next_sequence_++;
        if (file_ended_) {
            block->end_of_input = true;
            finished_ = true;
        } else {
            // Waiting for the producer is not this node's work: busy starts after.
            std::optional<std::vector<char>> bytes =
                documents_.pop([this] { return state_.graph.is_cancelled(); });
            if (!bytes && state_.graph.is_cancelled()) {
                finished_ = true;
                return;
            }
            auto busy = metrics_.busy_scope();
            block->file_ordinal = 0;
            block->file_offset = offset_;
            block->first = !started_;
            started_ = true;
            if (bytes) {
                block->bytes = std::move(*bytes);
                offset_ += block->bytes.size();
                metrics_.bytes_out += block->bytes.size();
                state_.bytes_read += block->bytes.size();
            } else {
                block->last = true;
                file_ended_ = true;
            }
        }
        ++metrics_.items_out;
        out.try_put(std::move(block));
    }

    RunState& state_;
    DocumentSource& documents_;
    std::atomic<bool> finished_{false};
    bool started_ = false;
    bool file_ended_ = false;
    uint64_t offset_ = 0;
    Ticket next_ticket_ = 0;
    uint64_t next_sequence_ = 0;
    flow::input_node<Ticket> tickets_;
    flow::limiter_node<Ticket> limiter_;
    ReaderBody reader_node_;
};

}  // namespace

std::unique_ptr<Node> make_document_read_node(NodeOptions& options, RunState& state, DocumentSource& documents) {
    // The file read node's one key; a block here is what the producer pushed.
    (void)options.byte_size("block_bytes", state.config.memory.read_block_bytes);
    return std::make_unique<DocumentReadNode>(state, documents);
}

}  // namespace invidx
