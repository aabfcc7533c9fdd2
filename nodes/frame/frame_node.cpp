#include "nodes/frame/frame_node.hpp"

#include "graph/guard.hpp"
#include "graph/in_order.hpp"
#include "invidx/entry_name.hpp"
#include "nodes/frame/framer.hpp"

namespace invidx {
namespace {

namespace flow = oneapi::tbb::flow;
using In = std::shared_ptr<const TextBlock>;
using Out = std::shared_ptr<const DocBatch>;
using Body = flow::multifunction_node<In, std::tuple<Out>>;
using OutPort = std::tuple_element_t<0, Body::output_ports_type>;

// Serial: framing is sequential within an entry, and docids are handed out
// here, in input order, so they never depend on how many parsers run later
// or how many files are decompressed at once.
class FrameNode final : public Stage<TextBlock, DocBatch> {
public:
    FrameNode(RunState& state, uint64_t batch_bytes)
        : state_(state),
          batch_bytes_(batch_bytes),
          node_(state.graph, flow::serial, [this](const In& text, Body::output_ports_type& ports) {
              run_guarded(metrics_, [&] {
                  file_order_.push(FilePosition{text->file_ordinal, text->file_block, text->file_end}, text,
                                   [&](const In& next) { process(*next, next->lease, std::get<0>(ports)); });
              });
          }) {
        metrics_.concurrency = 1;
        start_batch();
    }

    flow::receiver<In>& input_port() override { return node_; }
    flow::sender<Out>& output_port() override { return flow::output_port<0>(node_); }

private:
    void process(const TextBlock& text, const Lease& lease, OutPort& out) {
        auto busy = metrics_.busy_scope();
        ++metrics_.items_in;
        metrics_.bytes_in += text.bytes.size();
        // The batch holds the lease of the newest block it took text from:
        // tokens return only when the text is indexed.
        batch_->lease = lease;
        if (text.end_of_input) {
            ensure(!framer_, "input ended inside entry '" + entry_name_ + "'");
            batch_->end_of_input = true;
            emit(out);
            return;
        }
        const auto emit_record = [&](const FramedRecord& record) { add(record, text.file_ordinal, out); };
        // A file's empty file_end marker (messages.hpp) carries no entry.
        const bool marker = text.bytes.empty() && !text.entry_begin && !text.entry_end;
        if (!marker) {
            if (text.entry_begin) {
                const InputFile& file = state_.files.at(text.file_ordinal);
                entry_name_ = text.entry_name;
                framer_ = make_framer(file.format, document_name_of_entry(file, text.entry_name),
                                      state_.config.analysis);
            }
            ensure(framer_ != nullptr, "text block of '" + text.entry_name + "' arrived outside an entry");
            try {
                framer_->feed(text.bytes, emit_record);
                if (text.entry_end) {
                    framer_->finish(emit_record);
                    framer_.reset();
                }
            } catch (const Error& error) {
                // Framers know the entry by its document name; the user needs
                // the path they gave (and the member, for archives).
                ErrorContext context = error.context();
                context.file = entry_path_for_errors(state_.files.at(text.file_ordinal), text.entry_name);
                throw Error(error.message(), context);
            }
        }
        if (text.file_end) ensure(!framer_, "file ended inside entry '" + entry_name_ + "'");
    }

    void add(const FramedRecord& record, uint32_t file_ordinal, OutPort& out) {
        if (!batch_->docs.empty() && batch_->text.size() + record.text.size() > batch_bytes_) emit(out);
        DocRecord doc;
        doc.name = record.name;
        doc.text_offset = static_cast<uint32_t>(batch_->text.size());
        doc.text_length = static_cast<uint32_t>(record.text.size());
        doc.html = record.html;
        doc.file_ordinal = file_ordinal;
        doc.source_offset = record.source_offset;
        doc.record_number = record.record_number;
        batch_->text.append(record.text);
        batch_->docs.push_back(std::move(doc));
        ++state_.documents;
        state_.text_bytes += record.text.size();
    }

    void emit(OutPort& out) {
        next_docid_ += batch_->docs.size();
        metrics_.bytes_out += batch_->text.size();
        ++metrics_.items_out;
        Lease lease = batch_->lease;
        out.try_put(std::move(batch_));
        start_batch();
        batch_->lease = std::move(lease);
    }

    void start_batch() {
        batch_ = std::make_shared<DocBatch>();
        batch_->sequence = next_sequence_++;
        batch_->first_docid = next_docid_;
        batch_->text.reserve(batch_bytes_ + batch_bytes_ / 8);
    }

    RunState& state_;
    uint64_t batch_bytes_;
    FileOrder<In> file_order_;  // by (file_ordinal, file_block), see messages.hpp
    std::unique_ptr<Framer> framer_;
    std::string entry_name_;
    std::shared_ptr<DocBatch> batch_;
    uint64_t next_sequence_ = 0;
    uint64_t next_docid_ = 0;
    Body node_;
};

}  // namespace

std::unique_ptr<Node> make_frame_node(NodeOptions& options, RunState& state) {
    return std::make_unique<FrameNode>(state, options.byte_size("batch_bytes", state.config.memory.batch_bytes));
}

}  // namespace invidx
