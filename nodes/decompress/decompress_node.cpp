#include "nodes/decompress/decompress_node.hpp"

#include "graph/guard.hpp"
#include "graph/in_order.hpp"
#include "nodes/decompress/streaming_decompressor.hpp"

namespace invidx {
namespace {

namespace flow = oneapi::tbb::flow;
using In = std::shared_ptr<const RawBlock>;
using Out = std::shared_ptr<const TextBlock>;
using Body = flow::multifunction_node<In, std::tuple<Out>>;

// Serial: a file's compressed stream must be decoded in order. The decoder
// runs on its own thread (libarchive pulls; the graph pushes), so reading the
// next block overlaps with decoding this one.
class DecompressNode final : public Stage<RawBlock, TextBlock> {
public:
    DecompressNode(RunState& state, size_t text_block_bytes)
        : state_(state),
          decompressor_(text_block_bytes),
          node_(state.graph, flow::serial, [this](const In& block, Body::output_ports_type& ports) {
              run_guarded(metrics_, [&] {
                  in_order_.push(block->sequence, block, [&](const In& next) { process(next, std::get<0>(ports)); });
              });
          }) {
        metrics_.concurrency = 1;
    }

    flow::receiver<In>& input_port() override { return node_; }
    flow::sender<Out>& output_port() override { return flow::output_port<0>(node_); }

private:
    template <class Port>
    void process(const In& block, Port& out) {
        auto busy = metrics_.busy_scope();
        ++metrics_.items_in;
        metrics_.bytes_in += block->bytes.size();
        if (block->end_of_input) {
            auto end = std::make_shared<TextBlock>();
            end->end_of_input = true;
            end->sequence = next_sequence_++;
            end->lease = block->lease;
            ++metrics_.items_out;
            out.try_put(std::move(end));
            return;
        }
        const InputFile& file = state_.files.at(block->file_ordinal);
        decompressor_.push(block, file, [&](TextBlock&& text) {
            text.sequence = next_sequence_++;
            metrics_.bytes_out += text.bytes.size();
            ++metrics_.items_out;
            out.try_put(std::make_shared<const TextBlock>(std::move(text)));
        });
    }

    RunState& state_;
    StreamingDecompressor decompressor_;
    InOrder<In> in_order_;
    uint64_t next_sequence_ = 0;
    Body node_;
};

}  // namespace

std::unique_ptr<Node> make_decompress_node(NodeOptions& options, RunState& state) {
    const uint64_t text_block_bytes = options.unsigned_integer("text_block_bytes", state.config.memory.text_block_bytes);
    if (text_block_bytes == 0 || text_block_bytes > (1ull << 30))
        throw ConfigError(options.pointer("text_block_bytes"), "must be between 1 and 2^30");
    return std::make_unique<DecompressNode>(state, text_block_bytes);
}

}  // namespace invidx
