#include "nodes/read/read_node.hpp"

#include <chrono>
#include <optional>

#include "graph/buffer_pool.hpp"
#include "graph/token_paced_source.hpp"
#include "nodes/read/block_reader.hpp"

namespace invidx {
namespace {

// The reader (graph/token_paced_source.hpp): one block of the input files
// per token, in collection order.
class ReadNode final : public TokenPacedSource {
public:
    ReadNode(RunState& state, size_t block_bytes)
        : TokenPacedSource(state),
          block_bytes_(block_bytes),
          buffers_(std::make_shared<BufferPool<std::vector<char>>>(state.tokens.capacity())) {}

private:
    void make_block(Lease lease, Out& out) override {
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
                    finish();
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

    size_t block_bytes_;
    std::shared_ptr<BufferPool<std::vector<char>>> buffers_;  // of the blocks read; at most one per token
    std::unique_ptr<BlockReader> reader_;
    size_t next_file_ = 0;
    std::optional<std::chrono::steady_clock::time_point> last_block_out_;
    uint64_t next_sequence_ = 0;
};

}  // namespace

std::unique_ptr<Node> make_read_node(NodeOptions& options, RunState& state) {
    return std::make_unique<ReadNode>(state, options.byte_size("block_bytes", state.config.memory.read_block_bytes));
}

}  // namespace invidx
