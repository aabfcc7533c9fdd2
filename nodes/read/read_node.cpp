#include "nodes/read/read_node.hpp"

#include "graph/guard.hpp"
#include "graph/token_pool.hpp"
#include "nodes/read/block_reader.hpp"

namespace invidx {
namespace {

namespace flow = oneapi::tbb::flow;
using Message = std::shared_ptr<const RawBlock>;

class ReadNode final : public SourceStage<RawBlock> {
public:
    ReadNode(RunState& state, size_t block_bytes)
        : state_(state),
          block_bytes_(block_bytes),
          source_(state.graph, [this](oneapi::tbb::flow_control& control) { return next(control); }),
          limiter_(state.graph, state.tokens.capacity()) {
        flow::make_edge(source_, limiter_);
        state_.tokens.on_release([this] { limiter_.decrementer().try_put(flow::continue_msg()); });
        metrics_.concurrency = 1;
    }
    ~ReadNode() override { state_.tokens.on_release(nullptr); }

    flow::sender<Message>& output_port() override { return limiter_; }
    void start() override { source_.activate(); }

private:
    Message next(oneapi::tbb::flow_control& control) {
        if (finished_) {
            control.stop();
            return {};
        }
        return run_guarded(metrics_, [&]() -> Message {
            auto busy = metrics_.busy_scope();
            while (true) {
                if (!reader_) {
                    if (next_file_ == state_.files.size()) {
                        // The sentinel lets every later node close its last batch and run.
                        auto end = std::make_shared<RawBlock>();
                        end->end_of_input = true;
                        end->lease = state_.tokens.acquire();
                        finished_ = true;
                        ++metrics_.items_out;
                        return end;
                    }
                    reader_ = std::make_unique<BlockReader>(state_.files[next_file_], block_bytes_);
                }
                auto block = std::make_shared<RawBlock>();
                if (reader_->next(*block)) {
                    if (block->last) {
                        reader_.reset();
                        ++next_file_;
                    }
                    block->lease = state_.tokens.acquire();
                    metrics_.bytes_out += block->bytes.size();
                    ++metrics_.items_out;
                    state_.bytes_read += block->bytes.size();
                    return block;
                }
                reader_.reset();
                ++next_file_;
            }
        });
    }

    RunState& state_;
    size_t block_bytes_;
    std::unique_ptr<BlockReader> reader_;
    size_t next_file_ = 0;
    bool finished_ = false;
    flow::input_node<Message> source_;
    flow::limiter_node<Message> limiter_;
};

}  // namespace

std::unique_ptr<Node> make_read_node(NodeOptions& options, RunState& state) {
    const uint64_t block_bytes = options.unsigned_integer("block_bytes", state.config.memory.read_block_bytes);
    if (block_bytes == 0 || block_bytes > (1ull << 30))
        throw ConfigError(options.pointer("block_bytes"), "must be between 1 and 2^30");
    return std::make_unique<ReadNode>(state, block_bytes);
}

}  // namespace invidx
