#include "nodes/flush/flush_node.hpp"

#include <algorithm>
#include <chrono>
#include <map>

#include "graph/build_state.hpp"
#include "graph/guard.hpp"
#include "graph/seconds_since.hpp"
#include "store/index_writer.hpp"

namespace invidx {
namespace {

namespace flow = oneapi::tbb::flow;
using In = std::shared_ptr<const CompressedRun>;

// Serial: runs are written in order, so documents go to disk in docid order.
// Parts of later runs that complete first wait here (at most a few runs).
class FlushNode final : public FlushStage {
public:
    explicit FlushNode(RunState& state)
        : state_(build_state(state)), node_(state.graph, flow::serial, [this](const In& part) {
              run_guarded(metrics_, [&] { receive(part); });
              return flow::continue_msg();
          }) {
        metrics_.concurrency = 1;
        ensure(state_.writer != nullptr, "the flush node needs an index writer");
    }

    flow::receiver<In>& input_port() override { return node_; }

    void finish(RunState&) override {
        ensure(pending_.empty(), "run " + std::to_string(next_run_) + " never completed: an indexer's part is missing");
        finished_ = true;
    }

    void write_dictionary(std::vector<DictionaryTerm> dictionary) override {
        // The dictionary points into every run: written after the last one.
        ensure(finished_, "the dictionary was handed to the flush node before its last run was written");
        ensure(!dictionary_written_, "the dictionary was handed to the flush node twice");
        dictionary_written_ = true;
        const auto start = std::chrono::steady_clock::now();
        state_.writer->write_dictionary(std::move(dictionary));
        state_.add_stage_seconds("dictionary_write", seconds_since(start));
    }

private:
    void receive(const In& part) {
        auto busy = metrics_.busy_scope();
        ++metrics_.items_in;
        metrics_.bytes_in += part->bytes.size();
        auto& parts = pending_[part->run];
        parts.push_back(part);
        while (!pending_.empty() && pending_.begin()->first == next_run_ &&
               pending_.begin()->second.size() == pending_.begin()->second.front()->indexer_count) {
            write(next_run_, std::move(pending_.begin()->second));
            pending_.erase(pending_.begin());
            ++next_run_;
        }
    }

    void write(uint32_t run, std::vector<In> parts) {
        std::sort(parts.begin(), parts.end(), [](const In& a, const In& b) { return a->indexer < b->indexer; });
        std::vector<CompressedRun> copies;
        copies.reserve(parts.size());
        for (const auto& part : parts) {
            state_.writer->append_documents(part->documents);
            // The last holder of a part moves its bytes instead of copying them.
            if (part.use_count() == 1) {
                copies.push_back(std::move(const_cast<CompressedRun&>(*part)));
            } else {
                copies.push_back(*part);
            }
            copies.back().documents.clear();
        }
        state_.writer->write_run(run, std::move(copies));
        ++metrics_.items_out;
    }

    BuildState& state_;
    std::map<uint32_t, std::vector<In>> pending_;
    uint32_t next_run_ = 0;
    bool finished_ = false;
    bool dictionary_written_ = false;
    flow::function_node<In, flow::continue_msg> node_;
};

}  // namespace

std::unique_ptr<Node> make_flush_node(NodeOptions&, RunState& state) { return std::make_unique<FlushNode>(state); }

}  // namespace invidx
