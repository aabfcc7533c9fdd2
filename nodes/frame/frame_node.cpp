#include "nodes/frame/frame_node.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>
#include <vector>

#include "graph/guard.hpp"
#include "graph/in_order.hpp"
#include "graph/latency_stat.hpp"
#include "graph/occupancy_gauge.hpp"
#include "nodes/frame/docid_assigner.hpp"
#include "nodes/frame/document_capture.hpp"
#include "nodes/frame/file_framer.hpp"
#include "invidx/available_cores.hpp"

namespace invidx {
namespace {

namespace flow = oneapi::tbb::flow;
using In = std::shared_ptr<const TextBlock>;
using Out = std::shared_ptr<const DocBatch>;
using RouterBody = flow::multifunction_node<In, std::tuple<FileBatch>>;
using WorkerBody = flow::multifunction_node<In, std::tuple<FileBatch>>;
using DocidBody = flow::multifunction_node<FileBatch, std::tuple<Out>>;

// Framing is sequential within a file but independent between files, except
// for the docids. So `count` workers frame whole files (file f goes to
// worker f % count, its blocks put back in file_block order there), each
// file into batches numbered within the file (FileFramer), and a light
// serial step takes the batches in collection order, by (file ordinal,
// batch within the file) through FileOrder, and numbers them
// (DocidAssigner): docids never depend on how many framers, decompressors
// or parsers run.
//
// No deadlock with few tokens, by the decompress node's argument: blocks are
// read in file order, so while a block of the earliest unfinished file f is
// unread no later file holds a token, and once all are read they are in the
// graph; a worker never waits (blocks of other files it holds wait in its
// per-file order, not in its way), so f is framed to its end, and the docid
// step, for which f is next, passes its batches on. Only messages hold
// leases: a batch in progress holds none (file_framer.hpp, docid_assigner.hpp).
class FrameNode final : public Stage<TextBlock, DocBatch> {
public:
    FrameNode(RunState& state, uint64_t batch_bytes, unsigned count)
        : state_(state),
          batch_bytes_(batch_bytes),
          router_(state.graph, flow::unlimited,
                  [this](const In& text, RouterBody::output_ports_type& ports) {
                      run_guarded(metrics_, [&] { route(text, std::get<0>(ports)); });
                  }),
          docid_step_(state.graph, flow::serial,
                      [this](const FileBatch& in, DocidBody::output_ports_type& ports) {
                          run_guarded(metrics_, [&] {
                              // The end-of-input marker waits for every file: not counted.
                              const auto held_count = [](const DocBatch& b) { return b.end_of_input ? 0 : 1; };
                              const auto now = OccupancyGauge::Clock::now();
                              held_text_bytes_ += in.batch->text_bytes;
                              held_count_ += held_count(*in.batch);
                              file_order_.push(in.position, in.batch, [&](const std::shared_ptr<DocBatch>& batch) {
                                  held_text_bytes_ -= batch->text_bytes;
                                  held_count_ -= held_count(*batch);
                                  order_wait_.add(batch->framed_at, now);
                                  number(batch, std::get<0>(ports));
                              });
                              held_batches_.set(held_count_, now);
                              held_bytes_.set(held_text_bytes_, now);
                          });
                      }),
          assigner_(batch_bytes),
          document_store_(document_store_of(state)) {
        for (unsigned i = 0; i < count; ++i) workers_.push_back(std::make_unique<Worker>(*this));
        flow::make_edge(flow::output_port<0>(router_), docid_step_);
        for (auto& worker : workers_) flow::make_edge(flow::output_port<0>(worker->node), docid_step_);
        metrics_.concurrency = count;
    }

    flow::receiver<In>& input_port() override { return router_; }
    flow::sender<Out>& output_port() override { return flow::output_port<0>(docid_step_); }

    void finish(RunState& state) override {
        state.add_report_section("frame", {{"framers", workers_.size()},
                                           {"framing_busy_seconds", framing_busy_ns_.load() / 1e9},
                                           {"docid_step_busy_seconds", docid_busy_ns_.load() / 1e9},
                                           {"docid_step_held", held_report()},
                                           {"batch_order_wait_seconds", order_wait_.to_json()}});
    }

private:
    // What the docid step held back waiting for an earlier batch of the
    // collection (a later file's, framed before an earlier file's text came):
    // held batches hold their tokens, so this is the text the collection's
    // order keeps in flight.
    nlohmann::json held_report() const {
        return {{"peak_batches", held_batches_.peak()},
                {"mean_batches", held_batches_.mean()},
                {"peak_text_bytes", held_bytes_.peak()},
                {"mean_text_bytes", held_bytes_.mean()}};
    }

    // The files one worker frames, each with its blocks put back in order;
    // used on the worker's thread only.
    struct OpenFile {
        OpenFile(const InputFile& file, const AnalysisSettings& settings, uint64_t batch_bytes)
            : framer(file, settings, batch_bytes) {}
        InOrder<In> blocks;  // by TextBlock::file_block
        FileFramer framer;
    };

    struct Worker {
        explicit Worker(FrameNode& owner)
            : node(owner.state_.graph, flow::serial, [this, &owner](const In& text, WorkerBody::output_ports_type& ports) {
                  run_guarded(owner.metrics_, [&] { owner.frame(*this, text, std::get<0>(ports)); });
              }) {}

        std::map<uint32_t, OpenFile> files;
        WorkerBody node;
    };

    template <class Port>
    void route(const In& text, Port& out) {
        ++metrics_.items_in;
        metrics_.bytes_in += text->bytes.size();
        if (text->end_of_input) {
            // Keyed (number of files, 0) by the decompress node: the docid
            // step takes it once every file's last batch has passed.
            auto end = std::make_shared<DocBatch>();
            end->end_of_input = true;
            end->lease = text->lease;
            out.try_put(FileBatch{FilePosition{text->file_ordinal, text->file_block, true}, std::move(end)});
            return;
        }
        Worker& worker = *workers_[text->file_ordinal % workers_.size()];
        worker.node.try_put(text);
    }

    template <class Port>
    void frame(Worker& worker, const In& text, Port& out) {
        auto busy = metrics_.busy_scope();
        auto framing = NodeMetrics::BusyScope(framing_busy_ns_);
        auto it = worker.files.find(text->file_ordinal);
        if (it == worker.files.end()) {
            it = worker.files.try_emplace(text->file_ordinal, state_.files.at(text->file_ordinal),
                                          state_.config.analysis, batch_bytes_).first;
        }
        OpenFile& file = it->second;
        file.blocks.push(text->file_block, text, [&](const In& next) {
            file.framer.take(next, [&](FileBatch&& batch) { out.try_put(std::move(batch)); });
        });
        if (file.framer.ended()) worker.files.erase(it);
    }

    template <class Port>
    void number(const std::shared_ptr<DocBatch>& batch, Port& out) {
        auto busy = metrics_.busy_scope();
        auto numbering = NodeMetrics::BusyScope(docid_busy_ns_);
        const auto emit = [&](std::shared_ptr<DocBatch> numbered) {
            state_.documents += numbered->docs.size();
            state_.text_bytes += numbered->text_bytes;
            metrics_.bytes_out += numbered->text_bytes;
            ++metrics_.items_out;
            numbered->numbered_at = std::chrono::steady_clock::now();
            capture_documents(document_store_, *numbered);
            out.try_put(std::move(numbered));
        };
        if (batch->end_of_input) {
            assigner_.finish(batch->lease, emit);
        } else {
            assigner_.take(batch, emit);
        }
    }

    RunState& state_;
    const uint64_t batch_bytes_;
    std::atomic<uint64_t> framing_busy_ns_{0};
    std::atomic<uint64_t> docid_busy_ns_{0};
    RouterBody router_;
    std::vector<std::unique_ptr<Worker>> workers_;
    FileOrder<std::shared_ptr<DocBatch>> file_order_;  // used on the docid step's thread
    uint64_t held_text_bytes_ = 0;                      // likewise: of the batches file_order_ holds
    uint64_t held_count_ = 0;                           // likewise: those batches, the end marker not counted
    OccupancyGauge held_batches_, held_bytes_;          // likewise
    LatencyStat order_wait_;  // a framed batch's wait for its turn in the collection's order
    DocidBody docid_step_;
    DocidAssigner assigner_;
    DocumentStoreWriter* const document_store_;  // nullptr: off; used on the docid step's thread
};

}  // namespace

void resolve_frame_node(NodeOptions& options, const PipelineConfig&, BuildPlan& plan) {
    // Default "auto": one framer per four cores. Framing costs well under a
    // nanosecond per byte, a tenth of parsing, and files can only be framed
    // at once as far as the decompress workers decode them at once.
    const unsigned automatic = std::max(1u, plan.machine.cores / 4);
    settle_count(options, plan, automatic, automatic, "one per four cores");
}

std::unique_ptr<Node> make_frame_node(NodeOptions& options, RunState& state) {
    const uint64_t batch_bytes = options.byte_size("batch_bytes", state.plan.batch_bytes);
    return std::make_unique<FrameNode>(state, batch_bytes, state.plan.count_of(options));
}

}  // namespace invidx
