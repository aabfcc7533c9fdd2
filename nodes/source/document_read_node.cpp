#include "nodes/source/document_read_node.hpp"

#include <optional>
#include <vector>

#include "graph/token_paced_source.hpp"

namespace invidx {
namespace {

// The reader (graph/token_paced_source.hpp), as the file read node
// (nodes/read): a token per block. The documents are file 0; the block
// after the last pushed one is an empty one marked last (the decoders take
// that as the file's end), then the end-of-input sentinel.
class DocumentReadNode final : public TokenPacedSource {
public:
    DocumentReadNode(RunState& state, DocumentSource& documents) : TokenPacedSource(state), documents_(documents) {}

private:
    void make_block(Lease lease, Out& out) override {
        auto block = std::make_shared<RawBlock>();
        block->lease = std::move(lease);
        block->sequence = next_sequence_++;
        if (file_ended_) {
            block->end_of_input = true;
            finish();
        } else {
            // Waiting for the producer is not this node's work: busy starts after.
            std::optional<std::vector<char>> bytes =
                documents_.pop([this] { return state_.graph.is_cancelled(); });
            if (!bytes && state_.graph.is_cancelled()) {
                finish();
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

    DocumentSource& documents_;
    bool started_ = false;
    bool file_ended_ = false;
    uint64_t offset_ = 0;
    uint64_t next_sequence_ = 0;
};

}  // namespace

std::unique_ptr<Node> make_document_read_node(NodeOptions& options, RunState& state, DocumentSource& documents) {
    // The file read node's one key; a block here is what the producer pushed.
    (void)options.byte_size("block_bytes", state.config.memory.read_block_bytes);
    return std::make_unique<DocumentReadNode>(state, documents);
}

}  // namespace invidx
