#include "nodes/regroup/regroup_node.hpp"

#include <algorithm>
#include <thread>

#include "graph/guard.hpp"
#include "nodes/regroup/regroup.hpp"

namespace invidx {
namespace {

namespace flow = oneapi::tbb::flow;
using In = std::shared_ptr<const ParsedBatch>;
using Out = std::shared_ptr<const RegroupedBatch>;

class RegroupNode final : public Stage<ParsedBatch, RegroupedBatch> {
public:
    RegroupNode(RunState& state, unsigned count)
        : node_(state.graph, count, [this](const In& batch) {
              return run_guarded(metrics_, [&] { return process(batch); });
          }) {
        metrics_.concurrency = count;
    }

    flow::receiver<In>& input_port() override { return node_; }
    flow::sender<Out>& output_port() override { return node_; }

private:
    Out process(const In& batch) {
        auto busy = metrics_.busy_scope();
        ++metrics_.items_in;
        metrics_.bytes_in += batch->terms.size();
        // The parser hands each batch to this node alone; when no one else
        // holds it, it is moved from instead of copied.
        ParsedBatch input = batch.use_count() == 1 ? std::move(const_cast<ParsedBatch&>(*batch)) : *batch;
        auto out = std::make_shared<RegroupedBatch>(regroup(std::move(input)));
        ++metrics_.items_out;
        metrics_.bytes_out += out->terms.size();
        return out;
    }

    flow::function_node<In, Out> node_;
};

}  // namespace

std::unique_ptr<Node> make_regroup_node(NodeOptions& options, RunState& state) {
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    return std::make_unique<RegroupNode>(state, options.count(std::max(1u, (hardware * 3 + 3) / 4), 1));
}

}  // namespace invidx
